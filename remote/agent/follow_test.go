package agent

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/entry"
)

// fakeFollowing is a follow that saw events and counts its closes.
type fakeFollowing struct {
	follow entry.Follow
	closed *int
}

func (f fakeFollowing) Read() (entry.Follow, bool) { return f.follow, false }
func (f fakeFollowing) Close()                     { *f.closed++ }

// followController is an entriesController that follows.
type followController struct {
	entriesController
	filters []string
	closed  int
}

func (c *followController) FollowEntries(f entry.Filter) (entry.Following, error) {
	c.filters = append(c.filters, f.String())
	dns := model.Flow{Proto: 17, Src: netip.MustParseAddr("10.0.0.5"), Dst: netip.MustParseAddr("10.96.0.10"), SrcPort: 40000, DstPort: 53, TCPState: -1}
	ev := []entry.Event{{At: time.Unix(100, 0), Flow: dns}, {At: time.Unix(101, 0), Gone: true, Flow: dns}}
	return fakeFollowing{follow: entry.Follow{Filter: f, Since: time.Unix(99, 0), New: 1, Gone: 1, Events: 2, Recent: ev}, closed: &c.closed}, nil
}

// TestServeFollow: an agent follows the filter a follow request names
// (checked as it lands, re-rendered), answers followed with what it saw,
// ends the follow on request, on a new follow and when its input ends;
// followed without a follow is an error, as is a follow of a filter
// conntrack(8) does not take.
func TestServeFollow(t *testing.T) {
	c := &followController{}
	input := strings.Join([]string{
		`{"op":"followed","id":1}`,
		`{"op":"follow","id":2,"on":true,"filter":"-p udp  --dport=53"}`,
		`{"op":"followed","id":3}`,
		`{"op":"follow","id":4,"on":true,"filter":"--origin 1.2.3.4"}`,
		`{"op":"follow","id":5,"on":false}`,
		`{"op":"follow","id":6,"on":true,"filter":"-p tcp"}`,
	}, "\n") + "\n"
	replies, _, err := serveTo(t, c, input, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(replies) != 6 {
		t.Fatalf("%d replies, want 6: %+v", len(replies), replies)
	}
	if !strings.Contains(replies[0].Error, "no follow") {
		t.Errorf("followed before a follow: %+v", replies[0])
	}
	if r := replies[2].Follow; r == nil || r.New != 1 || r.Gone != 1 || len(r.Recent) != 2 || !r.Recent[1].Gone {
		t.Errorf("followed: %+v", replies[2])
	}
	if !strings.Contains(replies[3].Error, "no option --origin") {
		t.Errorf("a follow of a bad filter: %+v", replies[3])
	}
	if strings.Join(c.filters, "|") != "-p udp --dport 53|-p tcp" || c.closed != 2 {
		t.Errorf("followed %q, closed %d times; want the two good filters, re-rendered, each closed", c.filters, c.closed)
	}
}

// TestFollowCheckedWhereItLands: what an agent says it followed is kept
// only as the console's follow would keep it: the newest MaxFollowed
// events, only those its filter matches, counts no lower than them, and
// nf_conntrack_events only as a value the kernel has.
func TestFollowCheckedWhereItLands(t *testing.T) {
	udp, _ := entry.ParseFilter(entry.FilterArgs{"proto": "udp"})
	dns := model.Flow{Proto: 17, Src: netip.MustParseAddr("10.0.0.5"), Dst: netip.MustParseAddr("10.96.0.10"), DstPort: 53, TCPState: -1}
	web := model.Flow{Proto: 6, Src: netip.MustParseAddr("10.0.0.5"), Dst: netip.MustParseAddr("10.96.0.20"), DstPort: 80}
	r := FollowReply{New: 0, Events: 99}
	for i := range entry.MaxFollowed + 100 {
		f := dns
		if i%2 == 1 {
			f = web
		}
		r.Recent = append(r.Recent, entry.Event{At: time.Unix(int64(i), 0), Flow: f})
	}
	got, failed := followOf(udp, r)
	if failed || len(got.Recent) != entry.MaxFollowed/2 || got.New != uint64(entry.MaxFollowed/2) || got.Events != 2 ||
		got.Recent[len(got.Recent)-1].At.Unix() != int64(entry.MaxFollowed+98) {
		t.Errorf("kept %d events, counted %d new, events %d; want the newest %d of udp, counted, events 2",
			len(got.Recent), got.New, got.Events, entry.MaxFollowed/2)
	}
}

// TestFollowKeepsWhatItSawWhenTheLinkIsDown: a Read while the agent
// cannot be asked says failed, with what the follow saw before, not an
// empty follow.
func TestFollowKeepsWhatItSawWhenTheLinkIsDown(t *testing.T) {
	udp, _ := entry.ParseFilter(entry.FilterArgs{"proto": "udp"})
	seen := entry.Follow{Filter: udp, New: 7, Events: 2}
	f := &remoteFollowing{p: &Process{}, last: seen}
	got, failed := f.Read()
	if !failed || got.New != 7 || got.Events != 2 {
		t.Errorf("Read with the link down: %+v, failed %v; want what was seen, failed", got, failed)
	}
}
