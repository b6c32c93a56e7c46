package diagnose

import (
	"slices"

	"github.com/tablefull/tablefull/model"
)

// Outweighs reports whether f is the fill to size a table on rather
// than g: one whose classes were split (by ended entries or a census)
// over one whose classes are a guess, else the larger working set.
func (f Fill) Outweighs(g Fill) bool {
	switch {
	case !g.Known():
		return f.Known()
	case f.Guessed != g.Guessed:
		return !f.Guessed
	}
	return f.WorkingSet() > g.WorkingSet()
}

// splitUnsplit is r's rates by class, with each protocol that no ended
// entry could split (a pool whose connections never closed) split by
// the census's mix of that protocol's classes instead: entries of a
// class that stands in the table are that class's, not TIME_WAIT's by
// default.
func splitUnsplit(cs *model.Census, r model.EntryRates) [model.NumClasses]float64 {
	out := r.PerClass
	for pr := model.Proto(0); pr < model.NumProtos; pr++ {
		var total float64
		for _, cl := range pr.Classes() {
			total += float64(cs.ByClass[cl])
		}
		if !r.Unsplit[pr] || total == 0 {
			continue
		}
		var rate float64
		for _, cl := range pr.Classes() {
			rate += out[cl]
		}
		for _, cl := range pr.Classes() {
			out[cl] = rate * float64(cs.ByClass[cl]) / total
		}
	}
	return out
}

// WithHolds is f with each class held as c holds it on the kernel of
// release: the ceiling of a moment is that moment's cap over that
// moment's holds, not a later hold's.
func (f Fill) WithHolds(c model.Conntrack, release string) Fill {
	f.Classes = slices.Clone(f.Classes)
	for i := range f.Classes {
		f.Classes[i].Hold = classHold(c, f.Classes[i].Class, release)
	}
	return f
}

// classHold is how long c's table holds an entry of class cl on the
// kernel of release: its timeout (TIME_WAIT's for tcp-closed when the
// holds were not read), and what that kernel adds to it (HoldOf).
func classHold(c model.Conntrack, cl model.Class, release string) uint64 {
	h := c.Holds[cl]
	if cl == model.ClassTCPDone && h == 0 {
		h = c.TimeWaitHold
	}
	return model.HoldOf(cl, h, release)
}
