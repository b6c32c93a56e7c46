package report

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model/story"
)

// TestStoryWordsOfTheRecordings: what the newcomer read in the project's
// own recordings, said right — a class named where it held the table
// with no rate counted (not ", connections that live as long as their
// owners keep them" for UDP/53), and the before and after of changes
// made at one moment said once, not once a knob.
func TestStoryWordsOfTheRecordings(t *testing.T) {
	dns := string(buildFile(t, "../../testdata/incidents/dns.jsonl", Options{}).Markdown())
	if !strings.Contains(dns, "By class (at 04:29:11): udp 400 entries, no rate of new ones counted: no rate × hold projects them") ||
		strings.Contains(dns, "): , ") || strings.Contains(dns, "live as long as their owners") {
		t.Errorf("dns.jsonl's by-class line:\n%s", lineWith(dns, "By class"))
	}
	lab := string(buildFile(t, "../../testdata/incidents/lab-table-full.jsonl", Options{}).Markdown())
	if n := strings.Count(lab, " before, the table dropped "); n != 1 || !strings.Contains(lab, "was raised from 256 to 16,384 and every later sample read it back. At ") {
		t.Errorf("lab-table-full.jsonl says a before and after %d times for max and hashsize raised at one moment:\n%s", n, lineWith(lab, "raised from"))
	}
}

// lineWith is the first line of s holding sub.
func lineWith(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}

// namedWindows are the windows the story names: "busiest 30 s", "in the last
// 21 s", "In the 14 s before".
var namedWindows = regexp.MustCompile(`(?:busiest|in the last|In the) ((?:[0-9]+ h )?(?:[0-9]+ m )?[0-9]+ [smh])\b`)

// spanOf reads a duration as units.Dur prints it.
func spanOf(s string) time.Duration {
	var d time.Duration
	f := strings.Fields(s)
	for i := 0; i+1 < len(f); i += 2 {
		n, _ := strconv.Atoi(f[i])
		d += time.Duration(n) * map[string]time.Duration{"h": time.Hour, "m": time.Minute, "s": time.Second}[f[i+1]]
	}
	return d
}

// TestStoryWindowsFitTheRecording: every window the story names is one
// the recording holds: no "busiest 30 s" of a 25 s recording.
func TestStoryWindowsFitTheRecording(t *testing.T) {
	paths, _ := filepath.Glob("../../testdata/incidents/*.jsonl")
	demo, _ := filepath.Glob("../recording/demo/*.jsonl")
	read := 0
	for _, path := range append(paths, demo...) {
		r := buildFile(t, path, Options{})
		md := strings.ReplaceAll(string(r.Markdown()), `\_`, "_")
		span := r.Incident.To.Sub(r.Incident.From) + r.Incident.Interval
		for _, m := range namedWindows.FindAllStringSubmatch(md, -1) {
			read++
			if d := spanOf(m[1]); d > span {
				t.Errorf("%s: %q, of a recording of %s", filepath.Base(path), m[0], span)
			}
		}
		// on the data: a change's windows pin no longer than they last
		// ("In the 14 s before, … pinned 15 s" of lab-table-full)
		for _, c := range r.Incident.Changes {
			for _, w := range []story.Window{c.WindowBefore, c.WindowAfter} {
				if d := w.To.Sub(w.From); w.Pinned > d || d > span {
					t.Errorf("%s: a window of %s at %s pinned %s, in a recording of %s", filepath.Base(path), d, c.At, w.Pinned, span)
				}
			}
		}
	}
	if read == 0 {
		t.Fatal("no window read in any report")
	}
}

// TestReportCutsNoSentence: no report of the project's recordings cuts a
// verdict's words ("(2,210/s, med…." of nginx-ab).
func TestReportCutsNoSentence(t *testing.T) {
	paths, _ := filepath.Glob("../../testdata/incidents/*.jsonl")
	demo, _ := filepath.Glob("../recording/demo/*.jsonl")
	for _, path := range append(paths, demo...) {
		if md := string(buildFile(t, path, Options{}).Markdown()); strings.Contains(md, "…") {
			t.Errorf("%s cuts: %s", filepath.Base(path), lineWith(md, "…"))
		}
	}
}

// TestChartDrawsTheCeilingTheTextSays: where standing connections fill
// the table, the report says there is no ceiling and its TCP chart draws
// none (pool.jsonl drew one at 3.3/s beside "No ceiling").
func TestChartDrawsTheCeilingTheTextSays(t *testing.T) {
	r := buildFile(t, "../../testdata/incidents/pool.jsonl", Options{})
	md := string(r.Markdown())
	if !strings.Contains(md, "No ceiling of new entries") {
		t.Fatalf("pool.jsonl's report does not say there is no ceiling:\n%s", lineWith(md, "eiling"))
	}
	files, err := r.Files()
	if err != nil {
		t.Fatal(err)
	}
	for name, svg := range files {
		if strings.HasPrefix(name, "tcp") && strings.Contains(string(svg), "ceiling (") {
			t.Errorf("%s draws a ceiling beside 'No ceiling'", name)
		}
	}
}
