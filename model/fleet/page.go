package fleet

import (
	"time"

	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/verdict"
)

// View is what the operator asks of the fleet: the instances the engine
// keeps (Narrow, label matchers it applies) and which page of its
// ranking (Offset rows in, Limit rows long).
type View struct {
	Narrow        string
	Offset, Limit int
}

// Page is one refresh of the fleet: the whole fleet's totals and the
// rows of one page of its ranking, worst first.
type Page struct {
	Totals Totals
	Rows   []Row
	// Offset is where the page begins in the ranking (0: the worst).
	Offset int
	// Cost is what the refresh asked of the engine.
	Cost Cost
	// Recorded is when the engine evaluated the fleet's recording rules
	// the totals and the ranking were read from (zero: the refresh read
	// them from every host's series).
	Recorded time.Time
}

// Totals are the fleet's counts as the engine computed them, over every
// instance the selector keeps, whatever the page shows.
type Totals struct {
	// Hosts are the instances with a sample in the window; Stale those
	// that have not answered for a while.
	Hosts, Stale int
	// Pinned are the instances whose table was at its cap in the last
	// two minutes; Dropping those whose table drops now.
	Pinned, Dropping int
	// Kinds counts the instances where each verdict held (an instance
	// counts under every kind that held).
	Kinds map[verdict.Kind]int
	// Firing counts the alerts firing for the instances.
	Firing int
	// Unscored are the instances that serve their worst verdict but no
	// fleet score (an exporter older than the score, or one that could
	// not read its drop counters): they rank by their verdict alone, and
	// whether they drop is not known to Dropping, which counts the scores.
	Unscored int
}

// KindsBySeverity are the kinds Totals counts, most severe first.
func (t Totals) KindsBySeverity() []verdict.Kind {
	out := make([]verdict.Kind, 0, len(t.Kinds))
	for k, n := range t.Kinds {
		if n > 0 {
			out = append(out, k)
		}
	}
	diagnose.SortKinds(out)
	return out
}

// Cost is what one refresh asked of the engine: its queries, the bytes
// of their answers and the time until the last came back; Own is the
// part of that time the console spent itself (decoding the answers,
// building the rows), the rest being the engine's and the network's.
type Cost struct {
	Queries   int
	Bytes     int64
	Took, Own time.Duration
}
