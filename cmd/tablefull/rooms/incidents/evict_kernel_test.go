package incidents

import (
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	mincident "github.com/tablefull/tablefull/model/incident"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/tuning"
	"github.com/tablefull/tablefull/model/verdict"
	"github.com/tablefull/tablefull/sources/netns"
)

// TestTimeWaitTableIsNotNothingToEvict: at the kernel's proportions (max
// = buckets = 4,096), a connection per request without keep-alive fills
// the table with TIME_WAIT entries, which the garbage collector evicts
// near the cap though they are assured: in an interval that drops with
// early_drop at 0, TABLE FULL says so and never "nothing to evict", and
// the plan's fixes are the TIME_WAIT hold and max.
func TestTimeWaitTableIsNotNothingToEvict(t *testing.T) {
	// serial: the collector's passes it waits for are the machine's, and
	// other full tables beside it change when they come
	clitest.NeedKernel(t, "conntrack")
	clitest.LowerMax(t, 4096)
	ns := clitest.LabNS(t)
	clitest.Churn(t, ns, "127.0.0.1:18093", netns.Load{Workers: 8, Rate: 400, DialTimeout: time.Second})
	feed := clitest.StartClassFeed(t, ns, 500*time.Millisecond)
	feed.P.SetCensus(true)
	f := feed.Until(t, 40*time.Second, func(f diagnose.Frame) bool {
		cs := f.Sample.Census
		return hasKind(f, verdict.TableFull) && cs != nil && cs.AssuredCounted && cs.TCPState["TIME_WAIT"] > 2000 &&
			f.Rates.CTTotal.Get(model.Drop) > 0 && f.Rates.CTTotal.Get(model.EarlyDrop) == 0
	})
	for _, v := range f.Verdicts {
		if strings.Contains(v.Text(), "nothing to evict") {
			t.Errorf("a table of %d TIME_WAIT entries says nothing to evict: %s", f.Sample.Census.TCPState["TIME_WAIT"], v.Text())
		}
		if v.Kind == verdict.TableFull && !strings.Contains(v.Text(), "the garbage collector evicts those near the cap") {
			t.Errorf("drops with early_drop at 0 over closing entries, and TABLE FULL does not say the collector evicts them: %s", v.Text())
		}
	}
	knobs := tuning.KnobState{Current: mincident.KnobsAt(f.Sample.Conntrack), Global: true}
	plan := tuning.Diagnose(tuning.Guide{Knobs: knobs, Measured: feed.An.Frames(), Now: f}).Plan
	proposes := map[string]bool{}
	for _, c := range plan.Changes {
		proposes[c.Key] = true
	}
	if !proposes[knob.TimeWait] || !proposes[knob.Max] {
		t.Errorf("the plan does not name the TIME_WAIT hold and max: %+v", plan.Changes)
	}
	t.Logf("%s", f.Verdict())
	// The collector's evictions are counted when they happen: DESTROY
	// events of TIME_WAIT entries with time left, while early_drop counts
	// none of them; the verdict of such a moment names them.
	var evictedAt diagnose.Frame
	feed.Until(t, 40*time.Second, func(f diagnose.Frame) bool {
		if ps, ok := f.Rates.Entries.Evicted(); ok && ps > 0 && f.Rates.Entries.EvictedPS[model.ClassTCPDone] > 0 {
			evictedAt = f
		}
		return evictedAt.Sample.Time.Equal(f.Sample.Time) && f.Rates.CTTotal.Get(model.EarlyDrop) == 0 &&
			strings.Contains(f.Verdict().Text(), "evicted, seen in DESTROY events")
	})
	t.Logf("evicted %v/s: %s", evictedAt.Rates.Entries.EvictedPS, evictedAt.Verdict())
}
