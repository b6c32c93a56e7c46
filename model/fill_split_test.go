package model

import "testing"

// TestNewEntriesNeverEndedFollowTheCensus: a pool that opens connections
// and never closes one has no ended entry to split its new entries by;
// they are the classes the census finds standing (tcp-open), not
// TIME_WAIT's by default, and the working set is what stands, not the
// rate times TIME_WAIT's hold. Without a census the default stays.
func TestNewEntriesNeverEndedFollowTheCensus(t *testing.T) {
	prev := Sample{Entries: Entries{Source: EntriesEvents, Epoch: 1, New: [NumProtos]uint64{ProtoTCP: 1000}}}
	cur := prev
	cur.Entries.New[ProtoTCP] = 1384
	cur.Conntrack = Conntrack{Status: TableTracked, Count: 4494, Max: 8192, TimeWaitHold: 120,
		Holds: [NumClasses]uint64{ClassTCPDone: 120, ClassTCPOpen: 432000}}
	r := Rates{Entries: entryRates(prev, cur, 1)}
	if !r.Entries.Unsplit[ProtoTCP] || r.Entries.PerClass[ClassTCPDone] != 384 {
		t.Fatalf("rates %+v: want 384/s unsplit, put in tcp-closed", r.Entries)
	}
	census := &Census{Total: 4494, ByClass: ClassCounts{ClassTCPOpen: 4494}}
	f := FillOf(cur, r, census)
	top, _ := f.Top()
	if top.Class != ClassTCPOpen || top.RatePS != 384 || f.WorkingSet() != 4494 {
		t.Errorf("with the census: %+v, working set %d; want tcp-open at 384/s, 4,494 standing", f.Classes, f.WorkingSet())
	}
	for _, cf := range f.Classes {
		if cf.Class == ClassTCPDone {
			t.Errorf("tcp-closed %+v in a table the census finds all open", cf)
		}
	}
	if f := FillOf(cur, r, nil); f.Classes[0].Class != ClassTCPDone {
		t.Errorf("without a census: %+v, want the default tcp-closed", f.Classes)
	}
}
