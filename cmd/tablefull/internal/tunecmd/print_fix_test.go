package tunecmd

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/tally"
	"github.com/tablefull/tablefull/model/tuning"
	"github.com/tablefull/tablefull/model/tuning/surfacetest"
	"github.com/tablefull/tablefull/model/verdict"
)

// TestPrintSaysWhereTheFixIs: tablefull tune prints the one plan's words
// for a NAT's drops far from the cap (refused: the ruleset's fix) and for
// stale timeouts with no drops (nothing to propose, and conntrack -D), as
// the panel does.
func TestPrintSaysWhereTheFixIs(t *testing.T) {
	for kind, want := range map[verdict.Kind]string{verdict.NATPorts: "refused: no knob frees it: 12 drops", verdict.StaleTimeouts: "nothing to propose: the current values hold"} {
		plan, _ := surfacetest.FarFromTheCap(kind)
		var out bytes.Buffer
		printPlan(&out, plan, nil)
		if !strings.Contains(out.String(), want) || !strings.Contains(out.String(), string(kind)+": ") {
			t.Errorf("%s: tune prints %q, want %q and where the fix is", kind, out.String(), want)
		}
	}
}

// TestPrintSaysEveryNamespaceMayFill: on a host of many namespaces tune
// prints what the table could take when each fills to the cap, from the
// moment's namespaces.
func TestPrintSaysEveryNamespaceMayFill(t *testing.T) {
	cur := map[string]string{knob.Max: "4096", knob.Hashsize: "4096", knob.TimeWait: "120"}
	c := model.Conntrack{Status: model.TableTracked, Count: 4096, Peak: 4096, Max: 4096, Buckets: 4096, TimeWaitHold: 120}
	f := diagnose.Frame{Sample: model.Sample{Time: time.Unix(1000, 0), Conntrack: c, Namespaces: &model.Namespaces{Rows: []model.NetNS{{Inode: 7, Count: 10}}, Others: 22}},
		Pinned: true, Verdicts: []verdict.Verdict{{Kind: verdict.TableFull}}}
	f.Rates.Elapsed = time.Second
	f.Rates.CTTotal = model.CountersOf(map[model.Counter]uint64{model.Drop: 12})
	plan := tuning.Diagnose(tuning.Guide{Knobs: tuning.KnobState{Current: cur, Global: true}, Host: model.Host{MemTotal: 1 << 30},
		Measured: tally.NewRing[diagnose.Frame](1), Now: f}).Plan
	var out bytes.Buffer
	printPlan(&out, plan, nil)
	if !strings.Contains(out.String(), "memory: each of 24 namespaces may fill to the cap on its own: 24 × ") {
		t.Errorf("tune prints %q, want what 24 namespaces filling would take", out.String())
	}
}
