// Package story tells a recording's frames: the demo's captions and the
// report's windows before and after a change.
package story

import (
	"fmt"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/units"
)

// Caption says in one sentence what changed between two frames, for a
// demo or a talk: the count climbing, the table pinning, drops, SYN
// retransmits, the fix, the end of the stall. It returns "" when nothing
// worth saying happened. Each caption is true of the frame's own verdict:
// the retransmits are said of a table that refuses them, not of one that
// has room again.
func Caption(prev, cur diagnose.Frame) string {
	p, c := prev.Sample.Conntrack, cur.Sample.Conntrack
	drops := cur.Rates.Drops()
	prevDrops := prev.Rates.Drops()
	switch {
	case c.Max > p.Max && p.Max > 0:
		return fmt.Sprintf("The fix: nf_conntrack_max raised from %s to %s.", units.Int(p.Max), units.Int(c.Max))
	case cur.Pinned && !prev.Pinned:
		return fmt.Sprintf("Pinned at nf_conntrack_max = %s: new connections are dropped before any process sees them.", units.Int(c.Max))
	case drops > 0 && prevDrops == 0:
		// A caption stands on the frames after its own: its numbers say
		// which interval they are of, never "now".
		return fmt.Sprintf("conntrack -S counts the damage: %s packets dropped in the interval to %s.", units.Int(drops), cur.Sample.Time.Format("15:04:05"))
	case cur.Rates.SynRetransPS > 0 && prev.Rates.SynRetransPS == 0 && (cur.Pinned || drops > 0): // said only of a table refusing them
		return fmt.Sprintf("From %s clients retransmit their SYNs and wait 1, 2, 4, 8 s: the server never hears them.", cur.Sample.Time.Format("15:04:05"))
	case prev.Pinned && !cur.Pinned && c.Peak < c.Max:
		return "The table has room again: new connections get through."
	case !cur.Pinned && c.Max > 0 && c.Peak > p.Peak && c.Peak-p.Peak > c.Max/10:
		return fmt.Sprintf("The count is climbing: %s more tracked connections in the interval to %s.", units.Int(c.Peak-p.Peak), cur.Sample.Time.Format("15:04:05"))
	}
	return ""
}

// EndCaption is the last word of a recording played with captions: how
// the table stands at its last frame.
func EndCaption(last diagnose.Frame) string {
	c := last.Sample.Conntrack
	switch {
	case c.Status != model.TableTracked:
		return "End of the recording."
	case last.Pinned:
		return fmt.Sprintf("End of the recording: the table is still pinned at %s.", units.Int(c.Max))
	}
	return fmt.Sprintf("End of the recording: the table has room (%s of %s) and new connections get through.", units.Int(c.Count), units.Int(c.Max))
}
