package incident

import (
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/tuning"
)

// Planner keeps, bounded, the frames the plan of a live table reads (the
// exporter's): those of the press under way, kept as a recording's plan
// keeps them (the first, the peak rate or demand, the peak count, the
// largest fill, the newest census, the last pinned), so its plan is the
// one tablefull tune --dry-run proposes over the same frames. The frames
// reach back the quiet span before a press (what led up to it); a press
// ends once none of its frames was pinned or dropping for that span; a
// knob changed starts the frames again, for the table it is now.
type Planner struct {
	// Quiet is how long after its last pressed frame a press ends.
	Quiet  time.Duration
	frames planFrames
}

// Add folds one frame in.
func (p *Planner) Add(f diagnose.Frame) {
	last := p.frames.at.now
	if last == nil { // no press yet: what led up to one is the quiet span before it
		last = p.frames.kept.first
	}
	if last != nil && f.Sample.Time.Sub(last.Sample.Time) > p.Quiet {
		p.frames = planFrames{} // the press ended, or none began: the next is planned on its own frames
	}
	p.frames.live = true
	p.frames.add(f)
}

// Diagnosis is the newest pressed frame of the press under way,
// diagnosed over its kept frames, for host h (entryBytes: the slab's
// object size, 0 assumed); false when no press is under way.
func (p *Planner) Diagnosis(h model.Host, entryBytes uint64) (tuning.Diagnosis, bool) {
	return p.frames.at.diagnosis(h, entryBytes)
}
