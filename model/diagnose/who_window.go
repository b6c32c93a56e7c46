package diagnose

import (
	"time"

	"github.com/tablefull/tablefull/model"
)

// WhoWindow is how long the analyzer sums the probes' counts for the
// verdict: a pinned table lets only its ceiling through, so one interval
// holds few connections that closed, and their lifetimes need longer.
const WhoWindow = 30 * time.Second

// whoFrame is one interval's probe counts, and the table's own drop
// counter over it (when read).
type whoFrame struct {
	at         time.Time
	secs       float64
	who        *model.Who
	tableDrops uint64
	dropsRead  bool
}

// maxWhoFrames bounds the frames a window keeps, whatever the samples'
// times say (a stream's clock that stands still would keep every one):
// 30 s at the 10 Hz a feed can run.
const maxWhoFrames = 300

// whoTracker sums the probes' counts over the trailing WhoWindow. Its
// memory is bounded: each frame keeps at most WhoShown flows of each
// kind, frames older than the window go, and never more than
// maxWhoFrames stay.
type whoTracker struct {
	frames []whoFrame
}

// observe adds an interval's counts and the table's drop counter over it
// (nil or off: the window restarts, as the probes did) and returns the
// window's sum and its seconds.
func (t *whoTracker) observe(at time.Time, secs float64, w *model.Who, tableDrops uint64, dropsRead bool) (*model.Who, float64) {
	if !w.On() || secs <= 0 {
		t.frames = t.frames[:0]
		return w, secs
	}
	t.frames = append(t.frames, whoFrame{at, secs, w, tableDrops, dropsRead})
	drop := max(0, len(t.frames)-maxWhoFrames)
	for drop < len(t.frames) && at.Sub(t.frames[drop].at) > WhoWindow {
		drop++
	}
	t.frames = append(t.frames[:0], t.frames[drop:]...)
	return t.sum()
}

// sum adds the frames' flows by owner and destination.
func (t *whoTracker) sum() (*model.Who, float64) {
	type connID struct {
		o     model.Owner
		proto uint8
		dest  string
	}
	type dropID struct {
		o         model.Owner
		src, dest string
		proto     uint8
	}
	conns, drops := map[connID]*model.ConnFlow{}, map[dropID]*model.DropFlow{}
	out := &model.Who{TableDropsRead: true, DropsSplit: len(t.frames) > 0}
	var secs float64
	since := map[connID]float64{} // the window's seconds before each flow's first
	for _, f := range t.frames {
		out.OtherOpened += f.who.OtherOpened
		out.OtherDrops += f.who.OtherDrops
		out.Lost += f.who.Lost
		out.DroppedByRules += f.who.DroppedByRules
		out.DropsSplit = out.DropsSplit && f.who.DropsSplit
		out.Limit = f.who.Limit
		out.TableDrops += f.tableDrops
		out.TableDropsRead = out.TableDropsRead && f.dropsRead
		for _, c := range f.who.Conns {
			id := connID{c.Owner, c.Proto, c.Dest}
			s, ok := conns[id]
			if !ok {
				s = &model.ConnFlow{Owner: c.Owner, Proto: c.Proto, Dest: c.Dest}
				conns[id] = s
				since[id] = secs
			}
			s.Opened += c.Opened
			s.Closed += c.Closed
			s.Failed += c.Failed
			s.LifeSum += c.LifeSum
			for i := range s.Life {
				s.Life[i] += c.Life[i]
			}
		}
		for _, d := range f.who.Drops {
			id := dropID{d.Owner, d.Src, d.Dest, d.Proto}
			s, ok := drops[id]
			if !ok {
				s = &model.DropFlow{Owner: d.Owner, Src: d.Src, Dest: d.Dest, Proto: d.Proto}
				drops[id] = s
			}
			s.N += d.N
		}
		secs += f.secs
	}
	for id, c := range conns {
		c.Secs = secs - since[id]
		out.Conns = append(out.Conns, *c)
	}
	for _, d := range drops {
		out.Drops = append(out.Drops, *d)
	}
	var rest uint64
	out.Conns, rest = model.TopConns(out.Conns, model.WhoShown)
	out.OtherOpened += rest
	out.Drops, rest = model.TopDrops(out.Drops, model.WhoShown)
	out.OtherDrops += rest
	return out, secs
}
