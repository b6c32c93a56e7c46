package diagnose

import (
	"fmt"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/tally"
	"github.com/tablefull/tablefull/model/units"
	"github.com/tablefull/tablefull/model/verdict"
)

// Demand is how many new entries per second are wanted while the table
// is pinned. A full table admits only its ceiling, so what gets in is not
// what is wanted: Demand is a lower bound, estimated from what was
// refused and from the rate before the pin.
type Demand struct {
	// AtLeast is the lower bound in new entries/s; 0 when not pinned.
	AtLeast float64
	// Basis says which estimate gave it.
	Basis string
}

// String is "demand ≥ 3,100 new/s", or "" when not pinned.
func (d Demand) String() string {
	c, ok := d.Clause()
	if !ok {
		return ""
	}
	return c.Text()
}

// Clause is "demand ≥ 3,100 new/s", its fact sourced by Basis; ok is
// false when not pinned.
func (d Demand) Clause() (verdict.Clause, bool) {
	if d.AtLeast <= 0 {
		return verdict.Clause{}, false
	}
	return say(verdict.Numbers, "demand",
		verdict.N("demand", d.AtLeast, verdict.PerSecond).Lower().From(d.Basis, model.ThisTable+", while pinned")), true
}

// SynAttempts is how many SYNs one refused connection sends at most:
// the first and tcp_syn_retries' default 6 retransmits. SYN retransmits
// per second ÷ it is a lower bound on the connections refused per second.
const SynAttempts = 7

// DemandLookback is how far before a pin its climb is looked for.
const DemandLookback = time.Minute

// demandTracker remembers the rates of the frames before a pin.
type demandTracker struct {
	recent *tally.Ring[timedRate]
	// before is the highest rate in DemandLookback before the pin began;
	// beforeClasses that frame's rates by class (and which protocols no
	// ended entry split).
	before        float64
	beforeClasses *model.EntryRates
	inPin         bool
}

type timedRate struct {
	at      time.Time
	rate    float64
	classes model.EntryRates
}

func newDemandTracker() *demandTracker { return &demandTracker{recent: tally.NewRing[timedRate](128)} }

// observe takes one frame, with its rates over at least one interval
// (spanTracker), and returns the demand at it.
func (d *demandTracker) observe(f Frame, r model.Rates) Demand {
	admitted := r.NewEntriesPS()
	if !f.Pinned {
		d.inPin = false
		if r.Entries.Known() {
			d.recent.Push(timedRate{at: f.Sample.Time, rate: admitted, classes: model.EntryRates{PerClass: r.Entries.PerClass, Unsplit: r.Entries.Unsplit}})
		}
		return Demand{}
	}
	if !d.inPin { // the pin begins: its climb is the rates just before it
		d.inPin, d.before, d.beforeClasses = true, 0, nil
		for i := range d.recent.Len() {
			if t := d.recent.At(i); f.Sample.Time.Sub(t.at) <= DemandLookback && t.rate >= d.before {
				d.before = t.rate
				pc := t.classes
				d.beforeClasses = &pc
			}
		}
	}
	out := Demand{AtLeast: admitted, Basis: "admitted now; the table refuses the rest"}
	if d.before > out.AtLeast {
		out = Demand{AtLeast: d.before, Basis: "the rate before the pin"}
	}
	if refused := admitted + r.SynRetransPS/SynAttempts; refused > out.AtLeast {
		out = Demand{AtLeast: refused, Basis: fmt.Sprintf("admitted plus %s SYN retransmits/s ÷ %d", units.Num(r.SynRetransPS), SynAttempts)}
	}
	if _, churn := f.Fill.Churn(); churn && r.Drops() > 0 { // a pinned table that drops is asked for more than its ceiling
		if ceiling, _ := CeilingOf(f.Sample.Conntrack, f.Fill); ceiling > out.AtLeast {
			out = Demand{AtLeast: ceiling, Basis: "the table's ceiling (max ÷ the hold of the class that fills it): a pinned table that drops is asked for more"}
		}
	}
	if out.AtLeast <= 0 {
		return Demand{}
	}
	return out
}

// classesBefore is the rates by class of the frame before the pin whose
// rate was highest (nil: no frame before the pin was seen).
func (d *demandTracker) classesBefore() *model.EntryRates {
	if !d.inPin {
		return nil
	}
	return d.beforeClasses
}
