package entry

import (
	"time"

	"github.com/tablefull/tablefull/model"
)

// MaxFollowed bounds the events an Follow keeps: a screen's worth
// many times over, whatever the table's churn.
const MaxFollowed = 512

// Event is one entry the kernel made or ended, as its event stream
// told it.
type Event struct {
	At   time.Time
	Gone bool // ended (a DESTROY event); false: made (NEW)
	Flow model.Flow
}

// Follow is the table followed through its event stream since
// Since: the last events its filter matched, oldest first, at most
// MaxFollowed, and exact counts of all it matched. Lost counts the events
// the kernel dropped because the listener's buffer was full: those are
// neither counted nor kept, so a follow that lost some says so.
//
// Events is net.netfilter.nf_conntrack_events as the follow began (-1:
// not read): at 2, the kernel's default, an entry made while no
// ctnetlink listener existed carries no event cache and ends unreported,
// so Gone counts only entries made while someone listened; at 0 the
// kernel reports nothing.
type Follow struct {
	Filter    Filter
	Since     time.Time
	New, Gone uint64
	Lost      uint64
	Events    int
	Recent    []Event
}

// Following is a follow under way: what it saw so far (failed: its
// event socket failed, so nothing after that was seen), and its end.
type Following interface {
	Read() (follow Follow, failed bool)
	Close()
}

// Followed keeps events in a ring of MaxFollowed and counts them: the
// state behind an Follow, fed one event at a time.
type Followed struct {
	// Events is nf_conntrack_events as the follow began (-1: not read).
	Events int
	filter Filter
	since  time.Time
	ring   [MaxFollowed]Event
	next   int
	full   bool
	made   uint64
	gone   uint64
}

// NewFollowed follows what filter matches from since.
func NewFollowed(filter Filter, since time.Time) *Followed {
	return &Followed{filter: filter, since: since, Events: -1}
}

// Add counts and keeps e when the filter matches its entry.
func (f *Followed) Add(e Event) {
	if !f.filter.Match(e.Flow) {
		return
	}
	if e.Gone {
		f.gone++
	} else {
		f.made++
	}
	f.ring[f.next] = e
	f.next = (f.next + 1) % MaxFollowed
	if f.next == 0 {
		f.full = true
	}
}

// Follow is the state so far, lost as the listener counted it; the
// events are a copy, oldest first.
func (f *Followed) Follow(lost uint64) Follow {
	out := Follow{Filter: f.filter, Since: f.since, New: f.made, Gone: f.gone, Lost: lost, Events: f.Events}
	if f.full {
		out.Recent = append(out.Recent, f.ring[f.next:]...)
	}
	out.Recent = append(out.Recent, f.ring[:f.next]...)
	return out
}
