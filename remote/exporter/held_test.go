package exporter

import (
	"bufio"
	"bytes"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/remote/recording"
	"github.com/tablefull/tablefull/remote/report"
)

// TestHeldTimeAgreesWithTheReport: on a recording with gaps (samples cut
// out of a real lab incident, three at a time), the seconds the exporter
// counts for each verdict and for the pinned table are the report's, to
// the millisecond: both count held time by model's one rule.
func TestHeldTimeAgreesWithTheReport(t *testing.T) {
	b, err := os.ReadFile("../report/testdata/lab-table-full.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var gapped bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	samples := 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, `{"k":"s"`) {
			samples++
			if samples%10 >= 4 && samples%10 <= 6 { // three missing of every ten
				continue
			}
		}
		gapped.WriteString(line + "\n")
	}
	rec, err := recording.ReadRecording(bytes.NewReader(gapped.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	e := New("test")
	gaps := 0
	an := diagnose.NewAnalyzer(2)
	for _, s := range rec.Samples {
		e.Observe(s)
		if an.Add(s).Gap {
			gaps++
		}
	}
	if gaps < 3 {
		t.Fatalf("%d gaps in the cut recording, want several", gaps)
	}
	rep, err := report.Build(bytes.NewReader(gapped.Bytes()), report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	snap := e.take()
	in := rep.Incident
	if len(in.Held) == 0 {
		t.Fatal("the report holds no verdict")
	}
	for _, k := range diagnose.ProblemKinds() {
		if got, want := snap.verdictSeconds[k], in.Held[k].Seconds(); math.Abs(got-want) > 0.001 {
			t.Errorf("%s: the exporter counts %.3f s, the report %.3f s", k, got, want)
		}
	}
	if got, want := snap.pinnedSeconds, in.Pinned.Seconds(); math.Abs(got-want) > 0.001 || want == 0 {
		t.Errorf("pinned: the exporter counts %.3f s, the report %.3f s", got, want)
	}
}
