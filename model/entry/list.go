package entry

import (
	"cmp"
	"container/heap"
	"fmt"
	"slices"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/safe"
)

// entryColumns are the columns entries sort by, each with its order, the
// first the default: the timeout left, as an operator asks which go
// first.
var entryColumns = []struct {
	name  string
	order func(a, b model.Flow) int
}{
	{"timeout", func(a, b model.Flow) int { return cmp.Compare(a.Timeout, b.Timeout) }},
	{"proto", func(a, b model.Flow) int { return cmp.Compare(a.Proto, b.Proto) }},
	{"state", func(a, b model.Flow) int { return cmp.Compare(a.TCPState, b.TCPState) }},
	{"src", func(a, b model.Flow) int { return a.Src.Compare(b.Src) }},
	{"dst", func(a, b model.Flow) int { return a.Dst.Compare(b.Dst) }},
	{"sport", func(a, b model.Flow) int { return cmp.Compare(a.SrcPort, b.SrcPort) }},
	{"dport", func(a, b model.Flow) int { return cmp.Compare(a.DstPort, b.DstPort) }},
	{"zone", func(a, b model.Flow) int { return cmp.Compare(a.Zone, b.Zone) }},
	{"mark", func(a, b model.Flow) int { return cmp.Compare(a.Mark, b.Mark) }},
	{"packets", func(a, b model.Flow) int { return cmp.Compare(a.Packets[0]+a.Packets[1], b.Packets[0]+b.Packets[1]) }},
	{"bytes", func(a, b model.Flow) int { return cmp.Compare(a.Bytes[0]+a.Bytes[1], b.Bytes[0]+b.Bytes[1]) }},
}

// Sorts are the columns' names, the default first.
var Sorts = func() []string {
	names := make([]string, len(entryColumns))
	for i, c := range entryColumns {
		names[i] = c.name
	}
	return names
}()

// columnOrder is the order of column; nil for no column of entryColumns.
func columnOrder(column string) func(a, b model.Flow) int {
	for _, c := range entryColumns {
		if c.name == column {
			return c.order
		}
	}
	return nil
}

// MaxRows bounds the rows an List keeps, whatever is asked.
const MaxRows = 10000

// List keeps, of the entries a dump streams past it, the first
// Limit in the chosen order (a bounded heap: a table of 262,144 entries
// costs Limit rows, not the table), and counts every entry that matched
// its filter exactly.
type List struct {
	Filter Filter
	Sort   string
	Desc   bool
	Limit  int
	// Matched counts the entries that passed the filter; of them,
	// Established the established TCP ones, Assured and Unreplied by
	// their status bits, Accounted those with packet counts.
	Matched, Established, Assured, Unreplied, Accounted int
	rows                                                entryHeap
}

// NewList keeps limit rows (at most MaxRows) of the entries
// filter passes, sorted by column sort (one of Sorts; "" the
// first), descending when desc.
func NewList(filter Filter, sort string, desc bool, limit int) (*List, error) {
	if sort == "" {
		sort = Sorts[0]
	}
	if !filter.labelsReady() {
		return nil, ErrLabelsUnread
	}
	order := columnOrder(sort)
	if order == nil {
		return nil, fmt.Errorf("%w: no column %q to sort by (%v)", ErrBadFilter, safe.Text(sort, 40), Sorts)
	}
	l := &List{Filter: filter, Sort: sort, Desc: desc, Limit: max(0, min(limit, MaxRows))}
	l.rows.less = func(a, b model.Flow) bool { // the heap's top is the row to drop first
		c := compareEntries(a, b, order)
		if desc {
			c = -c
		}
		return c > 0
	}
	return l, nil
}

// IsEstablished reports whether f is an established TCP connection: one
// a deletion would make lose its state.
func IsEstablished(f model.Flow) bool { return f.TCPState == model.TCPEstablished }

// Add counts e when it passes the filter, and keeps it when it is among
// the first Limit so far.
func (l *List) Add(e model.Flow) {
	if !l.Filter.Match(e) {
		return
	}
	l.Matched++
	if IsEstablished(e) {
		l.Established++
	}
	if e.Status&model.StatusAssured != 0 {
		l.Assured++
	}
	if e.Status&model.StatusSeenReply == 0 {
		l.Unreplied++
	}
	if e.Accounted {
		l.Accounted++
	}
	switch {
	case l.Limit == 0:
	case len(l.rows.flows) < l.Limit:
		heap.Push(&l.rows, e)
	case l.rows.less(l.rows.flows[0], e): // e comes before the last kept
		l.rows.flows[0] = e
		heap.Fix(&l.rows, 0)
	}
}

// Rows are the kept entries in order.
func (l *List) Rows() []model.Flow {
	out := slices.Clone(l.rows.flows)
	slices.SortFunc(out, func(a, b model.Flow) int {
		if l.rows.less(a, b) {
			return 1
		}
		if l.rows.less(b, a) {
			return -1
		}
		return 0
	})
	return out
}

// compareEntries orders a and b by a column's order, then by their
// tuples, so that an order is total and the same on every run.
func compareEntries(a, b model.Flow, order func(a, b model.Flow) int) int {
	c := order(a, b)
	if c != 0 {
		return c
	}
	for _, d := range []int{a.Src.Compare(b.Src), cmp.Compare(a.SrcPort, b.SrcPort), a.Dst.Compare(b.Dst), cmp.Compare(a.DstPort, b.DstPort),
		cmp.Compare(a.Proto, b.Proto), cmp.Compare(a.Zone, b.Zone), cmp.Compare(a.Timeout, b.Timeout), cmp.Compare(a.TCPState, b.TCPState),
		cmp.Compare(a.Status, b.Status), cmp.Compare(a.Mark, b.Mark), cmp.Compare(a.Packets[0], b.Packets[0]), cmp.Compare(a.Bytes[0], b.Bytes[0])} {
		if d != 0 {
			return d
		}
	}
	return 0
}

// entryHeap is a heap of flows whose top is the one to drop first.
type entryHeap struct {
	flows []model.Flow
	less  func(a, b model.Flow) bool
}

func (h entryHeap) Len() int           { return len(h.flows) }
func (h entryHeap) Less(i, j int) bool { return h.less(h.flows[i], h.flows[j]) }
func (h entryHeap) Swap(i, j int)      { h.flows[i], h.flows[j] = h.flows[j], h.flows[i] }
func (h *entryHeap) Push(x any)        { h.flows = append(h.flows, x.(model.Flow)) }
func (h *entryHeap) Pop() any {
	n := len(h.flows) - 1
	x := h.flows[n]
	h.flows = h.flows[:n]
	return x
}
