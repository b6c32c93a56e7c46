package report

import (
	"strings"
	"testing"
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
