package incident

import (
	"strconv"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/story"
	"github.com/tablefull/tablefull/model/tally"
)

// KnobChange is a change of a knob in a recording: seen in the samples
// (the kernel's own value, read back every sample) and, when the
// recording holds the apply's read-back (a console's r keeps it), what was asked.
type KnobChange struct {
	At  time.Time
	Key string
	// Before and After are the values of the samples either side.
	Before, After string
	// Held reports that every later sample read After (the change stuck).
	Held bool
	// Applied is the apply's own read-back when the recording holds the
	// results for this knob.
	Applied *knob.Result
	// Before and after windows of at most story.CompareSpan each.
	WindowBefore, WindowAfter story.Window
}

// knobsInSamples are the knobs a sample carries.
var knobsInSamples = [...]struct {
	key string
	get func(model.Conntrack) uint64
}{
	{knob.Max, func(c model.Conntrack) uint64 { return c.Max }},
	{knob.Hashsize, func(c model.Conntrack) uint64 { return c.Buckets }},
	{knob.TimeWait, func(c model.Conntrack) uint64 { return c.TimeWaitHold }},
	{knob.UDPTimeout, func(c model.Conntrack) uint64 { return c.Holds[model.ClassUDPSingle] }},
	{knob.UDPStream, func(c model.Conntrack) uint64 { return c.Holds[model.ClassUDPStream] }},
	{knob.SynSent, func(c model.Conntrack) uint64 { return c.Holds[model.ClassTCPUnanswered] }},
	{knob.SynRecv, func(c model.Conntrack) uint64 { return c.Holds[model.ClassTCPHalfOpen] }},
	{knob.LastAck, func(c model.Conntrack) uint64 { return c.Holds[model.ClassTCPLastAck] }},
}

// maxChanges bounds the changes an incident keeps (a recording that
// flaps a knob every second is not 43,200 rows).
const maxChanges = 32

// changeWatch finds knob changes between samples and the windows around
// them, in one pass: the rows of the last story.CompareSpan are kept, and each
// change collects the rows after it until story.CompareSpan has passed.
type changeWatch struct {
	prev    *model.Conntrack
	recent  *tally.Ring[story.WindowRow]
	changes []KnobChange
	// rows[i] are the rows around changes[i] while it is open.
	rows    [][]story.WindowRow
	open    []bool
	skipped int
	// replies are apply results not yet seen in a sample.
	replies []pendingReply
}

type pendingReply struct {
	at  time.Time
	res knob.Result
}

func newChangeWatch(interval time.Duration) *changeWatch {
	n := 3600
	if interval > 0 {
		n = min(36000, max(1, int(story.CompareSpan/interval)+1))
	}
	return &changeWatch{recent: tally.NewRing[story.WindowRow](n)}
}

// applied records an apply reply: its results attach to the change the
// next samples show.
func (w *changeWatch) applied(at time.Time, results []knob.Result) {
	for _, r := range results {
		if len(w.replies) < maxChanges {
			w.replies = append(w.replies, pendingReply{at: at, res: r})
		}
	}
}

func (w *changeWatch) add(f diagnose.Frame) {
	row := story.RowOf(f)
	c := f.Sample.Conntrack
	for i := range w.changes {
		if c.Status == model.TableTracked && w.changes[i].Held && w.changes[i].After != w.value(w.changes[i].Key, c) {
			w.changes[i].Held = false
		}
		if !w.open[i] {
			continue
		}
		w.rows[i] = append(w.rows[i], row)
		// story.CompareSpan has passed, or as many rows came as it holds (a
		// recording whose clock stands still must not grow them).
		if row.At().Sub(w.changes[i].At) > story.CompareSpan || len(w.rows[i]) >= 2*w.recent.Cap() {
			w.close(i)
		}
	}
	if w.prev != nil && c.Status == model.TableTracked && w.prev.Status == model.TableTracked {
		for _, k := range knobsInSamples {
			before, after := k.get(*w.prev), k.get(c)
			if before == after || before == 0 || after == 0 {
				continue
			}
			w.seen(KnobChange{At: f.Sample.Time.Add(-f.Sample.Interval / 2), Key: k.key,
				Before: strconv.FormatUint(before, 10), After: strconv.FormatUint(after, 10), Held: true}, row)
		}
	}
	w.recent.Push(row)
	if c.Status == model.TableTracked {
		w.prev = &c
	}
}

func (w *changeWatch) value(key string, c model.Conntrack) string {
	for _, k := range knobsInSamples {
		if k.key == key {
			return strconv.FormatUint(k.get(c), 10)
		}
	}
	return ""
}

func (w *changeWatch) seen(ch KnobChange, row story.WindowRow) {
	if len(w.changes) >= maxChanges {
		w.skipped++
		return
	}
	for i, p := range w.replies {
		if p.res.Key == ch.Key && p.res.After == ch.After && ch.At.Sub(p.at) < story.CompareSpan {
			res := p.res
			ch.Applied = &res
			w.replies = append(w.replies[:i], w.replies[i+1:]...)
			break
		}
	}
	rows := make([]story.WindowRow, 0, w.recent.Len()+1)
	for i := range w.recent.Len() {
		rows = append(rows, w.recent.At(i))
	}
	w.changes = append(w.changes, ch)
	w.rows = append(w.rows, append(rows, row))
	w.open = append(w.open, true)
}

func (w *changeWatch) close(i int) {
	w.changes[i].WindowBefore, w.changes[i].WindowAfter = story.SplitRows(w.rows[i], w.changes[i].At, story.CompareSpan)
	w.rows[i], w.open[i] = nil, false
}

// finish closes the changes still open (the recording ended within
// story.CompareSpan of them) and returns them, with the apply results no
// sample showed.
func (w *changeWatch) finish() ([]KnobChange, []knob.Result) {
	for i := range w.changes {
		if w.open[i] {
			w.close(i)
		}
	}
	var unseen []knob.Result
	for _, p := range w.replies {
		unseen = append(unseen, p.res)
	}
	return w.changes, unseen
}

// KnobValue is a knob's value as a sample read it (0: not read).
type KnobValue struct {
	Key   string
	Value uint64
}

// KnobsOf are the knobs table c carries, in the order the samples hold
// them.
func KnobsOf(c model.Conntrack) []KnobValue {
	out := make([]KnobValue, len(knobsInSamples))
	for i, k := range knobsInSamples {
		out[i] = KnobValue{Key: k.key, Value: k.get(c)}
	}
	return out
}
