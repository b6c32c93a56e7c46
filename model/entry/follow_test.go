package entry

import (
	"net/netip"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
)

// TestFollowedKeepsTheLastAndCountsAll: a follow counts every event its
// filter matches, keeps the last MaxFollowed oldest first, and leaves the
// rest out of both.
func TestFollowedKeepsTheLastAndCountsAll(t *testing.T) {
	f, err := ParseFilter(FilterArgs{"proto": "udp"})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Unix(1000, 0)
	fl := NewFollowed(f, start)
	udp := model.Flow{Proto: 17, Src: netip.MustParseAddr("10.0.0.1"), Dst: netip.MustParseAddr("10.0.0.2"), DstPort: 53, TCPState: -1}
	tcp := udp
	tcp.Proto, tcp.TCPState = 6, 3
	total := MaxFollowed + 40
	for i := range total {
		e := udp
		e.SrcPort = uint16(i)
		fl.Add(Event{At: start.Add(time.Duration(i) * time.Millisecond), Gone: i%3 == 0, Flow: e})
		fl.Add(Event{At: start, Flow: tcp})
	}
	got := fl.Follow(7)
	if got.New+got.Gone != uint64(total) || got.Gone != uint64((total+2)/3) || got.Lost != 7 {
		t.Errorf("counted new %d gone %d lost %d of %d udp events", got.New, got.Gone, got.Lost, total)
	}
	if len(got.Recent) != MaxFollowed {
		t.Fatalf("kept %d events, want %d", len(got.Recent), MaxFollowed)
	}
	for i, e := range got.Recent {
		if want := uint16(total - MaxFollowed + i); e.Flow.SrcPort != want || e.Flow.Proto != 17 {
			t.Fatalf("event %d is port %d proto %d, want the udp one from port %d", i, e.Flow.SrcPort, e.Flow.Proto, want)
		}
	}
	few := NewFollowed(f, start)
	few.Add(Event{Flow: udp})
	if r := few.Follow(0).Recent; len(r) != 1 || r[0].Flow != udp {
		t.Errorf("one event followed: %+v", r)
	}
}
