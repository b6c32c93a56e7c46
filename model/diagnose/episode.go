package diagnose

import (
	"strings"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/units"
)

// Episode is a period during which the table was pinned at its cap.
type Episode struct {
	// Start is the end of the first pinned interval minus that interval,
	// i.e. when the pinned interval began.
	Start time.Time
	// Seen is the time of the first pinned sample: when the pin was
	// first read, which is when panels and reports say it began (the
	// sample before read the count below the cap).
	Seen time.Time
	// Last is the time of the last pinned sample.
	Last time.Time
	// Open is true while the episode has not ended.
	Open bool
	// Drops counts the packets the table dropped (conntrack -S drop) during the episode.
	Drops uint64
	// Max is the cap the table was pinned at (the last).
	Max uint64
	// Caps are the caps in force while the episode was open, in order:
	// the one it began at, then each raise (or cut) inside it, at most
	// MaxEpisodeCaps.
	Caps []uint64
}

// MaxEpisodeCaps bounds an episode's caps (a cap that flaps is not a
// list without end).
const MaxEpisodeCaps = 8

// CapsText says the caps of the episode: "400", "400 → 1,024 → 8,192".
func (e Episode) CapsText() string {
	if len(e.Caps) == 0 {
		return units.Int(e.Max)
	}
	parts := make([]string, len(e.Caps))
	for i, c := range e.Caps {
		parts[i] = units.Int(c)
	}
	return strings.Join(parts, " → ")
}

// Duration is how long the table was pinned: from Start to the last pinned
// sample.
func (e Episode) Duration() time.Duration { return e.Last.Sub(e.Start) }

// LeaveAfter is how many consecutive samples below the cap end an episode.
// A table flapping around its cap (a few entries freed, then taken again)
// stays one episode instead of many.
const LeaveAfter = 3

// Episodes detects pinned periods from a sequence of samples and keeps the
// most recent ones.
type Episodes struct {
	list  []Episode
	below int
	keep  int
	begun int
}

// NewEpisodes keeps at most keep episodes (oldest dropped first).
func NewEpisodes(keep int) *Episodes { return &Episodes{keep: max(1, keep)} }

// Pinned reports whether a sample shows the table at its cap: the peak
// seen during the interval reached nf_conntrack_max.
func Pinned(c model.Conntrack) bool {
	return c.Status == model.TableTracked && c.Max > 0 && c.Peak >= c.Max
}

// Observe feeds one sample: whether it was pinned, its time and interval,
// and the drops counted during it.
func (e *Episodes) Observe(t time.Time, interval time.Duration, pinned bool, drops, capMax uint64) {
	cur := e.open()
	switch {
	case pinned && cur == nil:
		e.begun++
		e.list = append(e.list, Episode{Start: t.Add(-interval), Seen: t, Last: t, Open: true, Drops: drops, Max: capMax, Caps: []uint64{capMax}})
		if len(e.list) > e.keep {
			e.list = e.list[len(e.list)-e.keep:]
		}
		e.below = 0
	case pinned:
		cur.Last, cur.Drops, cur.Max = t, cur.Drops+drops, capMax
		cur.noteCap(capMax)
		e.below = 0
	case cur != nil:
		cur.Drops += drops
		cur.noteCap(capMax)
		e.below++
		if e.below >= LeaveAfter {
			cur.Open = false
		}
	}
}

// noteCap adds a cap that differs from the last one in force.
func (e *Episode) noteCap(capMax uint64) {
	if n := len(e.Caps); capMax > 0 && (n == 0 || e.Caps[n-1] != capMax) && n < MaxEpisodeCaps {
		e.Caps = append(e.Caps, capMax)
	}
}

func (e *Episodes) open() *Episode {
	if n := len(e.list); n > 0 && e.list[n-1].Open {
		return &e.list[n-1]
	}
	return nil
}

// Current returns the open episode, if any.
func (e *Episodes) Current() (Episode, bool) {
	if c := e.open(); c != nil {
		return *c, true
	}
	return Episode{}, false
}

// Begun counts the episodes begun, kept or not.
func (e *Episodes) Begun() int { return e.begun }

// List returns the kept episodes, oldest first.
func (e *Episodes) List() []Episode { return append([]Episode(nil), e.list...) }
