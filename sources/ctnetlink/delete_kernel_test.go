package ctnetlink

import (
	"net/netip"
	"testing"
	"time"

	"github.com/ti-mo/conntrack"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/entry"
	"github.com/tablefull/tablefull/sources/netns/nstest"
)

// TestDeleteByTheDumpedID: an entry is dumped (its id with it), then
// replaced on the same tuple by a new one (an ESTABLISHED connection
// where a TIME_WAIT one was shown); a delete of what was dumped is
// refused by the kernel as gone, and the new entry stays. A delete of
// the new entry as dumped goes.
func TestDeleteByTheDumpedID(t *testing.T) {
	ns, _ := nstest.Tracked(t)
	labFlow := func() conntrack.Flow {
		return conntrack.NewFlow(6, conntrack.StatusConfirmed|conntrack.StatusAssured, netip.MustParseAddr("10.7.0.2"),
			netip.MustParseAddr("10.7.0.80"), 40001, 80, 600, 0)
	}
	dumped := func() (model.Flow, int) {
		var found model.Flow
		n := 0
		if err := ns.Do(func() error {
			return Dump(2*time.Second, func(f model.Flow, _ bool) {
				if f.DstPort == 80 && f.SrcPort == 40001 {
					found, n = f, n+1
				}
			})
		}); err != nil {
			t.Fatal(err)
		}
		return found, n
	}
	if err := ns.Insert([]conntrack.Flow{labFlow()}); err != nil {
		t.Fatal(err)
	}
	shown, n := dumped()
	if n != 1 || shown.ID == 0 {
		t.Fatalf("the entry dumped %d times, id %d", n, shown.ID)
	}
	if err := ns.Do(func() error { // replaced on its tuple between the preview and the delete
		c, err := conntrack.Dial(nil)
		if err != nil {
			return err
		}
		defer c.Close()
		if err := c.Delete(labFlow()); err != nil {
			return err
		}
		// another entry takes the freed memory first, as on a busy table:
		// the id hashes the entry's address with its tuple
		other := labFlow()
		other.TupleOrig.Proto.SourcePort, other.TupleReply.Proto.DestinationPort = 40002, 40002
		if err := c.Create(other); err != nil {
			return err
		}
		return c.Create(labFlow())
	}); err != nil {
		t.Fatal(err)
	}
	now, _ := dumped()
	if now.ID == shown.ID {
		t.Skipf("the replacement got the same id (%d): the kernel reuses it here", now.ID)
	}
	var d entry.Deletion
	del := func(f model.Flow) {
		if err := ns.Do(func() error {
			dl, err := NewDeleter()
			if err != nil {
				return err
			}
			defer dl.Close()
			return dl.Delete(f, &d)
		}); err != nil {
			t.Fatal(err)
		}
	}
	del(shown)
	if _, n := dumped(); d.Deleted != 0 || d.Gone != 1 || n != 1 {
		t.Errorf("the delete of the entry shown: %+v, %d left: want it refused as gone and the replacement kept", d, n)
	}
	del(now)
	if _, n := dumped(); d.Deleted != 1 || n != 0 {
		t.Errorf("the delete of the entry as dumped now: %+v, %d left", d, n)
	}
}
