package report

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/remote/recording"
	"github.com/tablefull/tablefull/remote/stream"
)

func buildFile(t *testing.T, path string, o Options) *Report {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	o.Source = filepath.Base(path)
	r, err := Build(f, o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestLabRecordingReport: report.md of a real lab incident (table-full,
// fixed with --fix-after), golden.
func TestLabRecordingReport(t *testing.T) {
	r := buildFile(t, "testdata/lab-table-full.jsonl", Options{})
	golden.RequireEqual(t, r.Markdown())
	in := r.Incident
	if in.FirstPinned.IsZero() || in.Drops == 0 || len(in.Changes) == 0 || in.Changes[0].Key != knob.Max {
		t.Errorf("the lab pinned its table, dropped and was fixed: got pinned %v, %d drops, changes %+v", in.FirstPinned, in.Drops, in.Changes)
	}
}

// TestWindowReport: --from and --to cut the report to a window, and say so.
func TestWindowReport(t *testing.T) {
	all := buildFile(t, "testdata/lab-table-full.jsonl", Options{})
	from, _ := ParseWhen("+5s")
	to, _ := ParseWhen("+15s")
	r := buildFile(t, "testdata/lab-table-full.jsonl", Options{From: from, To: to, Title: "window"})
	if r.Incident.Samples >= all.Incident.Samples || r.Incident.Samples < 9 || r.Incident.Samples > 11 {
		t.Errorf("+5s..+15s holds %d samples of %d, want about 10", r.Incident.Samples, all.Incident.Samples)
	}
	if !strings.Contains(string(r.Markdown()), "It covers the recording from ") {
		t.Errorf("a window report should say what it covers")
	}
	late, _ := ParseWhen("+100h")
	f, _ := os.Open("testdata/lab-table-full.jsonl")
	defer f.Close()
	if _, err := Build(f, Options{From: late}); !errors.Is(err, ErrNoSamples) {
		t.Errorf("a window after the recording: got %v, want ErrNoSamples", err)
	}
}

func TestParseWhen(t *testing.T) {
	start := time.Date(2026, 11, 29, 21, 3, 53, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Time
		bad  bool
	}{
		{in: "2026-11-29T21:04:00Z", want: time.Date(2026, 11, 29, 21, 4, 0, 0, time.UTC)},
		{in: "21:04:10", want: time.Date(2026, 11, 29, 21, 4, 10, 0, time.UTC)},
		{in: "01:00", want: time.Date(2026, 11, 30, 1, 0, 0, 0, time.UTC)}, // after midnight: the next day
		{in: "+90s", want: start.Add(90 * time.Second)},
		{in: "5m", want: start.Add(5 * time.Minute)},
		{in: "yesterday", bad: true},
		{in: "-5m", bad: true},
	}
	for _, tt := range tests {
		w, err := ParseWhen(tt.in)
		if (err != nil) != tt.bad {
			t.Errorf("%q: error %v, want bad=%v", tt.in, err, tt.bad)
			continue
		}
		if got := w.resolve(start); !tt.bad && !got.Equal(tt.want) {
			t.Errorf("%q: got %v, want %v", tt.in, got, tt.want)
		}
	}
}

// TestChartsAreXML: every chart is well-formed SVG, and report.html is
// one file that loads nothing (no script, no link, no external image).
func TestChartsAreXML(t *testing.T) {
	r := buildFile(t, "testdata/lab-table-full.jsonl", Options{})
	if len(r.Charts) != 5 {
		t.Fatalf("got %d charts, want 5", len(r.Charts))
	}
	for _, c := range r.Charts {
		d := xml.NewDecoder(bytes.NewReader(c.SVG))
		root := ""
		for {
			tok, err := d.Token()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s.svg: %v", c.Name, err)
			}
			if se, ok := tok.(xml.StartElement); ok && root == "" {
				root = se.Name.Local
			}
		}
		if root != "svg" {
			t.Errorf("%s.svg: root element %q, want svg", c.Name, root)
		}
	}
	h, err := r.HTML()
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"<script", "<link", "src=\"http", "href=\"http", "@import", "<?xml"} {
		if bytes.Contains(h, []byte(bad)) {
			t.Errorf("report.html contains %q", bad)
		}
	}
	if n := bytes.Count(h, []byte("<svg")); n != 5 {
		t.Errorf("report.html inlines %d charts, want 5", n)
	}
}

// TestWriteRefusesOverwrite: a second report into the same directory
// needs --force, and --force never writes through a symlink.
func TestWriteRefusesOverwrite(t *testing.T) {
	r := buildFile(t, "testdata/lab-table-full.jsonl", Options{})
	dir := t.TempDir()
	files, err := r.Write(dir, false)
	if err != nil || len(files) != 7 {
		t.Fatalf("first write: %v, %d files", err, len(files))
	}
	if _, err := r.Write(dir, false); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Errorf("second write without force: %v", err)
	}
	victim := filepath.Join(t.TempDir(), "victim")
	os.WriteFile(victim, []byte("keep"), 0o600)
	os.Remove(filepath.Join(dir, "table.svg"))
	os.Symlink(victim, filepath.Join(dir, "table.svg"))
	if _, err := r.Write(dir, true); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Errorf("force over a symlink: %v", err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Errorf("the symlink's target was written")
	}
}

// TestEmptyRecording: a header and no sample is an error, not an empty
// report.
func TestEmptyRecording(t *testing.T) {
	var b bytes.Buffer
	if _, err := stream.NewEncoder(&b, model.Host{Name: "x"}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := Build(&b, Options{}); !errors.Is(err, ErrNoSamples) {
		t.Errorf("got %v, want ErrNoSamples", err)
	}
	if _, err := Build(strings.NewReader("not a recording\n"), Options{}); err == nil {
		t.Errorf("junk: want an error")
	}
}

// samplesSource hands out samples of a table, the cap raised at the
// sixth, for a Tee to record.
type samplesSource struct{ i int }

func (s *samplesSource) Host() model.Host { return model.Host{Name: "rec", CPUs: 1} }
func (s *samplesSource) Next() (model.Sample, error) {
	s.i++
	capMax := uint64(256)
	if s.i > 5 {
		capMax = 16384
	}
	return model.Sample{Time: time.Date(2026, 12, 1, 9, 0, s.i, 0, time.UTC), Interval: time.Second,
		Conntrack: model.Conntrack{Status: model.TableTracked, Count: 256, Peak: 256, Max: capMax, Buckets: 256, TimeWaitHold: 120}}, nil
}

// TestRecordedApplyIsTold: an apply the console recorded (Tee.Tuned) is
// in the report with the agent's read-back: the max change it made, and
// a knob no sample carries in a table of its own.
func TestRecordedApplyIsTold(t *testing.T) {
	tee := &recording.Tee{Feed: &samplesSource{}, Dir: t.TempDir()}
	path, on, err := tee.Toggle()
	if err != nil || !on {
		t.Fatalf("start recording: %v", err)
	}
	for i := range 10 {
		if i == 5 {
			err := tee.Tuned("apply", time.Date(2026, 12, 1, 9, 0, 5, 500_000_000, time.UTC), []knob.Result{
				{Key: knob.Max, Before: "256", Wanted: "16384", After: "16384", Verified: true},
				{Key: knob.Somaxconn, Before: "4096", Wanted: "8192", After: "8192", Verified: true}})
			if err != nil {
				t.Fatal(err)
			}
		}
		if _, err := tee.Next(); err != nil {
			t.Fatal(err)
		}
	}
	if err := tee.Stop(); err != nil {
		t.Fatal(err)
	}
	r := buildFile(t, path, Options{})
	in := r.Incident
	if len(in.Changes) != 1 || in.Changes[0].Applied == nil || len(in.UnseenApplies) != 1 || in.UnseenApplies[0].Key != knob.Somaxconn {
		t.Fatalf("changes %+v, unseen %+v", in.Changes, in.UnseenApplies)
	}
	md := string(r.Markdown())
	for _, want := range []string{"the apply asked 16384 and read back 16384 (verified)", "net.core.somaxconn | 4096 | 8192 | 8192 | yes"} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
}

// TestReportSaysWhatItDidNotHave: a recording whose CPU and disk were
// not read (a drill-down without node_exporter) never calls the server
// idle, and says what it lacked.
func TestReportSaysWhatItDidNotHave(t *testing.T) {
	var samples []model.Sample
	var drops uint64
	for i := range 20 {
		drops += 500
		s := model.Sample{Time: time.Date(2026, 12, 1, 9, 0, i, 0, time.UTC), Interval: time.Second,
			Conntrack: model.Conntrack{Status: model.TableTracked, Count: 4096, Peak: 4096, Max: 4096, Buckets: 4096, TimeWaitHold: 120},
			CTStats: model.CTStats{Source: "procfs", Reported: []model.Counter{model.Drop},
				PerCPU: []model.CPUCounters{{CPU: 0, Values: model.CountersOf(map[model.Counter]uint64{model.Drop: drops})}}},
			Absent: model.Parts(0).With(model.PartCPU).With(model.PartDisks).With(model.PartTCP)}
		samples = append(samples, s)
	}
	md := markdownOf(t, model.Host{Name: "drill"}, samples)
	for _, want := range []string{"Whether the server was idle meanwhile is not known (CPU not recorded throughout, disk not recorded throughout)",
		"Not in the recording for all of it: cpu, disks, tcp"} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	if strings.Contains(md, "server was idle (") || strings.Contains(md, "CPU 0 % busy") {
		t.Errorf("an idle server invented from nothing:\n%s", md)
	}
}

// TestReportNamesFullNamespace: a recording in which a pod's namespace
// was full while the host's own was not says which pod, when, and its
// drops.
func TestReportNamesFullNamespace(t *testing.T) {
	var samples []model.Sample
	for i := range 10 {
		s := model.Sample{Time: time.Date(2026, 12, 1, 9, 0, i, 0, time.UTC), Interval: time.Second,
			Conntrack:  model.Conntrack{Status: model.TableTracked, Count: 50, Peak: 50, Max: 300, Buckets: 300, TimeWaitHold: 120},
			Namespaces: &model.Namespaces{Rows: []model.NetNS{{Inode: 7, Name: "3f2a9c1e", Kind: "pod", PID: 42, Count: 300, Drops: uint64(100 * i), DropsRead: true}}}}
		samples = append(samples, s)
	}
	if md := markdownOf(t, model.Host{Name: "node-7"}, samples); !strings.Contains(md, "The table of pod 3f2a9c1e, another network namespace of this host, was full from") ||
		!strings.Contains(md, "peak 300 entries, 900 drops") {
		t.Errorf("report.md does not name the pod:\n%s", md)
	}
}
