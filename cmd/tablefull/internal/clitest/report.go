package clitest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/tunecmd"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/units"
)

// CheckDNSReport: the report of glibc's resolver against dnsmasq,
// recorded from inside its namespace while tune --until-free freed it
// from the host (TestOneDiagnosisOnTheKernel), tells it as the test
// knows it happened: the table was already at its cap when the
// recording began; the episode's cap as it was, with the raises inside
// it; the tuning the loop applied; the entries the resolver's clients
// make, not dnsmasq's; the arithmetic of UDP entries from their own
// hold, what freed the table, and no proposal larger than what freed it.
func CheckDNSReport(t *testing.T, text string, steps []tunecmd.LoopStep) {
	t.Helper()
	section := func(title string) string {
		_, rest, ok := strings.Cut(text, "## "+title+"\n")
		if !ok {
			t.Errorf("the report has no %q section", title)
			return ""
		}
		body, _, _ := strings.Cut(rest, "\n## ")
		return body
	}
	var maxes []string // the caps the loop set, in order
	for _, s := range steps {
		for _, r := range s.Results {
			if r.Key == knob.Max {
				maxes = append(maxes, units.Int(parseU(r.After)))
			}
		}
	}
	// The recording begins at the cap: pinned, by the report's own rule
	// (a first sample over EvictPct of the cap was at it already: a UDP
	// table at the cap drops and expires entries every moment).
	story := section("What happened")
	began := strings.Contains(story, "already pinned at nf\\_conntrack\\_max = 4,096 when the recording began")
	if !began || strings.Contains(story, "in 0 s") {
		t.Errorf("the story does not say the recording began at the cap:\n%s", story)
	}
	eps := section("Pinned episodes")
	if !strings.Contains(eps, "4,096 → ") {
		t.Errorf("the episode's cap is not 4,096 with its raises:\n%s", eps)
	}
	tuning := section("Tuning")
	for _, m := range maxes {
		if !strings.Contains(tuning, strings.ReplaceAll(m, ",", "")) && !strings.Contains(tuning, m) {
			t.Errorf("the tuning section does not list the raise to %s:\n%s", m, tuning)
		}
	}
	if owners := section("Census: what filled the table"); regexp.MustCompile(`(?m)^\| dnsmasq`).MatchString(owners) {
		t.Errorf("the owners give dnsmasq the entries its clients make:\n%s", owners)
	}
	arith := section("The arithmetic")
	if strings.Contains(arith, "TIME_WAIT hold of") || !strings.Contains(arith, "UDP") {
		t.Errorf("the arithmetic of UDP entries is not from the UDP hold:\n%s", arith)
	}
	if len(maxes) > 0 && !strings.Contains(arith, "freed") {
		t.Errorf("the arithmetic does not say what freed the table:\n%s", arith)
	}
	if m := regexp.MustCompile(`nf\\?_conntrack\\?_max \| [0-9,]+ \| ([0-9,]+)`).FindStringSubmatch(arith); m != nil && len(maxes) > 0 &&
		parseU(m[1]) > 2*parseU(strings.ReplaceAll(maxes[len(maxes)-1], ",", "")) {
		t.Errorf("the report proposes a max of %s, more than twice the %s that freed the table:\n%s", m[1], maxes[len(maxes)-1], arith)
	}
	if strings.Contains(text, "| TCP state |") || strings.Contains(text, "dropped SYNs") {
		t.Errorf("a table of UDP entries is told as TCP:\n%s", text)
	}
}

// parseU is a decimal number, 0 when it is not one.
func parseU(s string) uint64 {
	var n uint64
	for _, r := range strings.ReplaceAll(s, ",", "") {
		if r < '0' || r > '9' {
			return 0
		}
		n = n*10 + uint64(r-'0')
	}
	return n
}

// ReportSaysTheLabsIncident: a real table-full incident, recorded by the
// lab (rec, in dir) with its fix, becomes a report that tells it: pinned
// at the lab's cap, packets dropped, the kernel's lines, the fix read
// back.
func ReportSaysTheLabsIncident(t *testing.T, dir, rec string) {
	t.Helper()
	if out, err := Command("report", rec, "-o", filepath.Join(dir, "report")).CombinedOutput(); err != nil {
		t.Fatalf("report: %v: %s", err, out)
	}
	md, err := os.ReadFile(filepath.Join(dir, "report", "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"the table was pinned at nf\\_conntrack\\_max = 512",
		"packets were dropped",
		"nf\\_conntrack\\_max was raised from 512 to 16,384 and every later sample read it back",
		"table full",
		"| 1 | ",
	} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md does not say %q:\n%s", want, md)
		}
	}
	if strings.Contains(string(md), dir) || !strings.Contains(string(md), "from incident.jsonl") {
		t.Errorf("report.md names the recording by the path it was read from, not its name:\n%s", md)
	}
}
