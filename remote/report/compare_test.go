package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tablefull/tablefull/model/compare"
	"github.com/tablefull/tablefull/remote/recording/recordingtest"
)

// compared runs tablefull compare's request over specs and returns what
// it printed.
func compared(t *testing.T, q CompareRequest) string {
	t.Helper()
	var out bytes.Buffer
	if err := q.Run(&out); err != nil {
		t.Fatalf("compare %v: %v", q.Specs, err)
	}
	return out.String()
}

// TestCompareARecordingWithItself: over every recording we have, the
// same recording on both sides moved nothing, in every medium.
func TestCompareARecordingWithItself(t *testing.T) {
	for _, path := range recordingtest.Incidents(t, "../..") {
		t.Run(filepath.Base(path), func(t *testing.T) {
			for _, passes := range []int{1, 2} {
				specs := []string{path, path}
				if passes == 2 {
					specs = []string{path, path, path, path}
				}
				var c compare.Comparison
				if err := json.Unmarshal([]byte(compared(t, CompareRequest{Specs: specs, Passes: passes, JSON: true})), &c); err != nil {
					t.Fatal(err)
				}
				if !c.Same || len(c.Moved) != 0 || len(c.Across) != 0 {
					t.Errorf("%d passes a side: same %v, moved %v, across %v", passes, c.Same, c.Moved, c.Across)
				}
				if text := compared(t, CompareRequest{Specs: specs, Passes: passes}); !strings.Contains(text, "nothing moved: every figure read the same") {
					t.Errorf("the text does not say nothing moved:\n%s", text)
				}
			}
		})
	}
}

// TestCompareTheLabsFix: the lab's table-full against the same traffic
// on a table left at its size: drops fell to 0, and with one pass a side
// the spread is said to be unknown, not judged.
func TestCompareTheLabsFix(t *testing.T) {
	specs := []string{"../../testdata/incidents/lab-table-full.jsonl", "../../testdata/incidents/lab-healthy.jsonl"}
	text := compared(t, CompareRequest{Specs: specs, Passes: 1})
	for _, want := range []string{
		"A: 1 pass, lab-table-full.jsonl, on vm (kernel 6.18.44-fc-v1098)",
		"nf_conntrack_max: A began 256, ended 16,384; B began 262,144, ended 262,144",
		"dropped in (incidence per pass): A 1 of 1 pass, B 0 of 1 pass",
		"the spread between passes is unknown (one pass a side)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the text lacks %q:\n%s", want, text)
		}
	}
	var c compare.Comparison
	if err := json.Unmarshal([]byte(compared(t, CompareRequest{Specs: specs, Passes: 1, JSON: true})), &c); err != nil {
		t.Fatal(err)
	}
	drops, _ := c.Row("drops")
	if drops.Judgement != compare.SpreadUnknown || drops.A.Median == 0 || drops.B.Median != 0 {
		t.Errorf("drops: %+v", drops)
	}
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "drops ") && !strings.Contains(line, "fell to 0") {
			t.Errorf("the drops row does not say they fell to 0: %q", line)
		}
	}
}

// TestCompareLeadsWithTheHost: two hosts are said first, their names
// sanitised for a terminal and escaped for Markdown.
func TestCompareLeadsWithTheHost(t *testing.T) {
	src := "../../testdata/incidents/lab-healthy.jsonl"
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "other.jsonl")
	hostile := bytes.Replace(b, []byte(`"name":"vm"`), []byte(`"name":"db-*1*\u001b[31m"`), 1)
	if err := os.WriteFile(other, hostile, 0o644); err != nil {
		t.Fatal(err)
	}
	text := compared(t, CompareRequest{Specs: []string{src, other}, Passes: 1})
	first, _, _ := strings.Cut(text, "\n")
	if !strings.HasPrefix(first, "A and B differ in host: A on vm, B on db-*1*\\x1b[31m.") {
		t.Errorf("the first line is not the hosts' difference: %q", first)
	}
	if strings.ContainsRune(text, 0x1b) {
		t.Error("an escape reached the terminal")
	}
	if markdown := compared(t, CompareRequest{Specs: []string{src, other}, Passes: 1, Markdown: true}); !strings.Contains(markdown, `db-\*1\*`) {
		t.Errorf("the Markdown does not escape the host's name:\n%s", markdown)
	}
	newer := filepath.Join(t.TempDir(), "newer.jsonl")
	if err := os.WriteFile(newer, bytes.Replace(b, []byte(`"kernel":"6.18.44-fc-v1098"`), []byte(`"kernel":"5.15.0-91-generic"`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	text = compared(t, CompareRequest{Specs: []string{newer, src}, Passes: 1})
	if first, _, _ := strings.Cut(text, "\n"); first != "A and B differ in kernel: A on 5.15.0-91-generic, B on 6.18.44-fc-v1098. The figures below compare different kernels, not one change alone." {
		t.Errorf("the first line is not the kernels' difference: %q", first)
	}
}

// TestCompareSpansOfOneRecording: FILE@FROM..TO reads that span; a span
// the recording does not cover is refused, not compared as empty.
func TestCompareSpansOfOneRecording(t *testing.T) {
	rec := "../../testdata/incidents/lab-table-full.jsonl"
	var c compare.Comparison
	if err := json.Unmarshal([]byte(compared(t, CompareRequest{Specs: []string{rec + "@..+10s", rec + "@+25s.."}, Passes: 1, JSON: true})), &c); err != nil {
		t.Fatal(err)
	}
	if a, b := c.A.Passes[0], c.B.Passes[0]; a.Source != "lab-table-full.jsonl@..+10s" || a.Span() > b.Span() || !a.To.Before(b.From) {
		t.Errorf("spans: A %s %s–%s, B %s %s–%s", a.Source, a.From, a.To, b.Source, b.From, b.To)
	}
	odd := filepath.Join(t.TempDir(), "host@a..b.jsonl") // a file's own name, not a span
	b, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(odd, b, 0o644); err != nil {
		t.Fatal(err)
	}
	compared(t, CompareRequest{Specs: []string{odd, rec}, Passes: 1})
	err = CompareRequest{Specs: []string{rec, rec + "@+1h.."}, Passes: 1}.Run(&bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "no samples") {
		t.Errorf("a span past the recording's end: %v", err)
	}
}

func TestCompareRequestCheck(t *testing.T) {
	for _, c := range []struct {
		q    CompareRequest
		want string
	}{
		{CompareRequest{Specs: []string{"a"}, Passes: 1}, "want 2 recordings with --passes 1, 1 before the change then 1 after; got 1"},
		{CompareRequest{Specs: []string{"a", "b", "c"}, Passes: 2}, "want 4 recordings with --passes 2"},
		{CompareRequest{Specs: []string{"a", "b"}, Passes: 0}, "at least 1"},
		{CompareRequest{Specs: []string{"a", "b"}, Passes: 1, JSON: true, Markdown: true}, "choose one"},
		{CompareRequest{Specs: []string{"a@+1x..", "b"}, Passes: 1}, "a@+1x..: from"},
	} {
		err := c.q.Run(&bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.q, err, c.want)
		}
	}
}

// TestReportComparesItsFixAsCompareDoes: over every recording we have, a
// report whose recording changed a knob compares before and after it
// with the rows tablefull compare prints for the spans it names; the
// demo's fix took its drops to 0.
func TestReportComparesItsFixAsCompareDoes(t *testing.T) {
	fixed := 0
	for _, path := range recordingtest.Incidents(t, "../..") {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Build(f, Options{Source: filepath.Base(path), Reread: func() (io.ReadCloser, error) { return os.Open(path) }})
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if len(rep.Incident.Changes) == 0 {
			if rep.Fix != nil {
				t.Errorf("%s changed no knob, yet compares a fix", path)
			}
			continue
		}
		if rep.Fix == nil {
			t.Errorf("%s: %d knob changes, no comparison", path, len(rep.Incident.Changes))
			continue
		}
		fixed++
		var c compare.Comparison
		if err := json.Unmarshal([]byte(compared(t, CompareRequest{Specs: []string{path + rep.Fix.Before, path + rep.Fix.After}, Passes: 1, JSON: true})), &c); err != nil {
			t.Fatal(err)
		}
		if got, want := pageOf(rep.Fix.Comparison).rows, pageOf(c).rows; !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("%s: the report's rows are not compare's:\n%v\n%v", path, got, want)
		}
		md := string(rep.Markdown())
		if !strings.Contains(md, "## Before and after the fix") || !strings.Contains(md, "FILE"+rep.Fix.Before) {
			t.Errorf("%s: the report does not show the comparison", path)
		}
		if filepath.Base(path) == "table-full.jsonl" {
			if r, _ := rep.Fix.Row("drops"); r.B.Median != 0 || r.A.Median == 0 {
				t.Errorf("the demo's fix: drops %v then %v", r.A.Median, r.B.Median)
			}
		}
	}
	if fixed < 3 {
		t.Errorf("%d recordings compared their fix; the demo, the lab's and the real incidents' loops changed knobs", fixed)
	}
}

// TestCompareJSONIsItsDocument: compare --json decodes into CompareDoc
// with no field left over, names its schema, and docs/json.md lists it.
func TestCompareJSONIsItsDocument(t *testing.T) {
	out := compared(t, CompareRequest{Specs: []string{"../../testdata/incidents/lab-table-full.jsonl", "../../testdata/incidents/lab-healthy.jsonl"}, Passes: 1, JSON: true})
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	var doc CompareDoc
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("not its documented type: %v\n%.600s", err, out)
	}
	if doc.Schema != CompareSchema || len(doc.Rows) == 0 {
		t.Errorf("schema %q, %d rows", doc.Schema, len(doc.Rows))
	}
	md, err := os.ReadFile("../../docs/json.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "`"+CompareSchema+"`") {
		t.Errorf("docs/json.md does not list %s", CompareSchema)
	}
}

// TestComparePicture: --svg draws every pass's count and cap from its
// own start, on a log axis when the cap was raised many times over, and
// writes nothing through a symlink.
func TestComparePicture(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "compare.svg")
	specs := []string{"../../testdata/incidents/lab-table-full.jsonl", "../../testdata/incidents/lab-healthy.jsonl"}
	compared(t, CompareRequest{Specs: specs, Passes: 1, Picture: out})
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines, texts := 0, []string{}
	dec := xml.NewDecoder(bytes.NewReader(b))
	inText := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the picture is not XML: %v", err)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			lines += map[bool]int{true: 1}[el.Name.Local == "polyline"]
			inText = el.Name.Local == "text"
		case xml.CharData:
			if inText {
				texts = append(texts, string(el))
			}
		}
	}
	if lines != 4 { // a count and a cap a pass, no gap in either
		t.Errorf("%d lines, want 4", lines)
	}
	for _, want := range []string{"since each recording's start", "A (before): the count's peak, 1 pass", "B (after): nf_conntrack_max", "100,000", "0 s"} {
		if !slices.Contains(texts, want) {
			t.Errorf("the picture has no %q among %q", want, texts)
		}
	}
	link := filepath.Join(dir, "link.svg")
	if err := os.Symlink(filepath.Join(dir, "target"), link); err != nil {
		t.Fatal(err)
	}
	if err := (CompareRequest{Specs: specs, Passes: 1, Picture: link}).Run(io.Discard); err == nil {
		t.Error("the picture was written through a symlink")
	}
}
