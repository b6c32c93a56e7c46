package agent

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/tablefull/tablefull/model/entry"
)

// EntriesFollowController is an agent that follows its table's entries
// as the kernel makes and ends them (sources.EntriesFollower): the
// console's f in E over --ssh, --via and --netns.
type EntriesFollowController interface {
	FollowEntries(filter entry.Filter) (entry.Following, error)
}

// FollowReply is what a follow saw so far, as an agent answers
// "followed": the counts, the last events (at most entry.MaxFollowed)
// and whether its event socket failed.
type FollowReply struct {
	Since  time.Time     `json:"since"`
	New    uint64        `json:"new"`
	Gone   uint64        `json:"gone"`
	Lost   uint64        `json:"lost,omitempty"`
	Events int           `json:"events"`
	Recent []entry.Event `json:"recent,omitempty"`
	Failed bool          `json:"failed,omitempty"`
}

// errNotFollowing is a "followed" request with no follow under way.
var errNotFollowing = errors.New("no follow under way")

// following is an agent's follow under way: one at a time, ended by a
// request, by a new follow, or when the agent's input ends.
type following struct{ f entry.Following }

// start answers a checked follow request: On starts following its
// filter (ending the follow before it), else the follow ends.
func (fol *following) start(c Controller, req Request) error {
	fol.stop()
	if !req.On {
		return nil
	}
	fc, ok := c.(EntriesFollowController)
	if !ok {
		return fmt.Errorf("this agent does not follow entries")
	}
	filter, _ := checkEntriesRequest(&req) // checked as it landed
	f, err := fc.FollowEntries(filter)
	if err != nil {
		return err
	}
	fol.f = f
	return nil
}

// read is the follow so far.
func (fol *following) read() (*FollowReply, error) {
	if fol.f == nil {
		return nil, errNotFollowing
	}
	f, failed := fol.f.Read()
	return &FollowReply{Since: f.Since, New: f.New, Gone: f.Gone, Lost: f.Lost, Events: f.Events, Recent: f.Recent, Failed: failed}, nil
}

// stop ends the follow under way, if any.
func (fol *following) stop() {
	if fol.f != nil {
		fol.f.Close()
		fol.f = nil
	}
}

// Follow follows the entries filter matches on the agent's table: the
// agent follows, and each Read asks it what it saw.
func (r RemoteEntries) Follow(filter entry.Filter) (entry.Following, error) {
	if _, err := r.P.Request(Request{Op: OpFollow, On: true, Filter: filter.String()}, tuneTimeout); err != nil {
		return nil, err
	}
	return &remoteFollowing{p: r.P, last: entry.Follow{Filter: filter, Events: -1}}, nil
}

// remoteFollowing is a follow an agent holds.
type remoteFollowing struct {
	p    *Process
	mu   sync.Mutex // guards last: Reads may overlap on a slow link
	last entry.Follow
}

// Read asks the agent what its follow saw. A link that is down, or an
// answer that is not one, reads as failed with what was seen before.
func (f *remoteFollowing) Read() (entry.Follow, bool) {
	rep, err := f.p.Request(Request{Op: OpFollowed}, tuneTimeout)
	f.mu.Lock()
	defer f.mu.Unlock()
	if err != nil || rep.Follow == nil {
		return f.last, true
	}
	got, failed := followOf(f.last.Filter, *rep.Follow)
	f.last = got
	return got, failed
}

// Close ends the agent's follow.
func (f *remoteFollowing) Close() {
	f.p.Request(Request{Op: OpFollow, On: false}, tuneTimeout)
}

// followOf is an agent's follow as the console keeps it: checked where it
// lands. At most entry.MaxFollowed events, the newest, each its filter's
// (an agent's event the filter does not match is not kept), and counts
// no lower than the events kept.
func followOf(filter entry.Filter, r FollowReply) (entry.Follow, bool) {
	out := entry.Follow{Filter: filter, Since: r.Since, New: r.New, Gone: r.Gone, Lost: r.Lost, Events: max(-1, min(r.Events, 2))}
	var made, gone uint64
	for _, e := range r.Recent[max(0, len(r.Recent)-entry.MaxFollowed):] {
		if !filter.Match(e.Flow) || e.Flow.CheckForeign() != nil { // a row no kernel makes is not drawn
			continue
		}
		if e.Gone {
			gone++
		} else {
			made++
		}
		out.Recent = append(out.Recent, e)
	}
	out.New, out.Gone = max(out.New, made), max(out.Gone, gone)
	return out, r.Failed
}
