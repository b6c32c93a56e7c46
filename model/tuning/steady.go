package tuning

import (
	"time"

	"github.com/tablefull/tablefull/model"
)

// Steady is where a table's count settles after a change: a quiet
// stretch is not a free table while the count still climbs, since every
// entry admitted since the change is held the class's whole hold. The
// count's climb goes on until the entries from before the change
// have left (a hold after it), so the steady state is the count now plus
// that climb over the rest of the hold. A table is freed when that fits
// under the count the kernel's collector starts evicting from: above it
// the table is full enough to be evicted from, not free.
type Steady struct {
	// Count is the count now, Max the cap.
	Count, Max uint64
	// Climb is how fast the count rose since the change, entries/s.
	Climb float64
	// Hold is how long the class that fills the table is held; Watched
	// how long since the change.
	Hold, Watched time.Duration
}

// Remaining is how much of the hold is left after what was watched: once
// a whole hold has passed, every entry from before the change has gone
// and the count is its steady state.
func (s Steady) Remaining() time.Duration { return max(0, s.Hold-s.Watched) }

// Projected is the count the climb leads to by the end of the hold.
func (s Steady) Projected() uint64 {
	return s.Count + uint64(max(0, s.Climb)*s.Remaining().Seconds()+0.5)
}

// Room is the highest steady state that leaves the table free: the count
// the collector evicts from (model.GCEvictFrom), or the cap itself where
// the collector evicts nothing (a cap under 100).
func (s Steady) Room() uint64 {
	if r := model.GCEvictFrom(s.Max); r > 0 {
		return r
	}
	return s.Max
}

// Fits reports whether the steady state fits the room the cap leaves.
func (s Steady) Fits() bool { return s.Max > 0 && s.Projected() <= s.Room() }
