package entry

import (
	"errors"
	"fmt"

	"github.com/tablefull/tablefull/model/units"
)

// Deletion is what a deletion of the entries a filter matched did:
// how many matched, the kernel deleted, had ended meanwhile (Gone), were
// not asked for (Skipped: no ports to name them by, as ICMP's), and
// matched once it was done (StillMatch: new entries since; -1 not read
// back).
type Deletion struct {
	Matched    int `json:"matched"`
	Deleted    int `json:"deleted"`
	Gone       int `json:"gone"`
	Skipped    int `json:"skipped"`
	StillMatch int `json:"still_match"`
}

// ErrDeleteRefused is a deletion refused before anything was deleted.
var ErrDeleteRefused = errors.New("refused")

// DeleteRefusal says why deleting what l matched is refused, nil when
// it may go: an empty filter (every entry: conntrack -F is that), or
// established TCP connections, which would lose their state, unless
// established says the operator means them too.
func DeleteRefusal(l *List, established bool) error {
	switch {
	case l.Filter.String() == "":
		return fmt.Errorf("%w: an empty filter matches every entry (conntrack -F flushes the table; tablefull deletes by a filter)", ErrDeleteRefused)
	case l.Established > 0 && !established:
		return fmt.Errorf("%w: %s of the %s entries are established TCP connections, which would lose their state (--established deletes them too)",
			ErrDeleteRefused, units.Int(uint64(l.Established)), units.Int(uint64(l.Matched)))
	}
	return nil
}

// String says what the deletion did: "deleted 3 (0 already gone, 0
// without ports not asked); 0 match now".
func (d Deletion) String() string {
	s := fmt.Sprintf("deleted %s (%s already gone, %s without ports not asked)", units.Int(uint64(d.Deleted)), units.Int(uint64(d.Gone)), units.Int(uint64(d.Skipped)))
	if d.StillMatch >= 0 {
		s += fmt.Sprintf("; %s match now", units.Int(uint64(d.StillMatch)))
	}
	return s
}
