package diagnose

import (
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
)

// TestNewEntriesNeverEndedFollowTheCensus: a pool that opens connections
// and never closes one has no ended entry to split its new entries by;
// they are the classes the census finds standing (tcp-open), not
// TIME_WAIT's by default, and the working set is what stands, not the
// rate times TIME_WAIT's hold. Without a census the default stays.
func TestNewEntriesNeverEndedFollowTheCensus(t *testing.T) {
	prev := model.Sample{Entries: model.Entries{Source: model.EntriesEvents, Epoch: 1, New: [model.NumProtos]uint64{model.ProtoTCP: 1000}}}
	cur := prev
	cur.Entries.New[model.ProtoTCP] = 1384
	cur.Conntrack = model.Conntrack{Status: model.TableTracked, Count: 4494, Max: 8192, TimeWaitHold: 120,
		Holds: [model.NumClasses]uint64{model.ClassTCPDone: 120, model.ClassTCPOpen: 432000}}
	cur.Time = prev.Time.Add(time.Second)
	r := model.Delta(prev, cur)
	if !r.Entries.Unsplit[model.ProtoTCP] || r.Entries.PerClass[model.ClassTCPDone] != 384 {
		t.Fatalf("rates %+v: want 384/s unsplit, put in tcp-closed", r.Entries)
	}
	census := &model.Census{Total: 4494, ByClass: model.ClassCounts{model.ClassTCPOpen: 4494}}
	f := FillOf(cur, r, census)
	top, _ := f.Top()
	if top.Class != model.ClassTCPOpen || top.RatePS != 384 || f.WorkingSet() != 4494 {
		t.Errorf("with the census: %+v, working set %d; want tcp-open at 384/s, 4,494 standing", f.Classes, f.WorkingSet())
	}
	for _, cf := range f.Classes {
		if cf.Class == model.ClassTCPDone {
			t.Errorf("tcp-closed %+v in a table the census finds all open", cf)
		}
	}
	if f := FillOf(cur, r, nil); f.Classes[0].Class != model.ClassTCPDone {
		t.Errorf("without a census: %+v, want the default tcp-closed", f.Classes)
	}
}
