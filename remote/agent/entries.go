package agent

import (
	"errors"
	"fmt"
	"slices"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/entry"
	"github.com/tablefull/tablefull/model/safe"
)

// MaxAgentRows bounds the rows of one entries reply: a screen's worth
// (every entry that matches is still counted), so a reply stays one
// line the stream's bounds take, whatever the table holds.
const MaxAgentRows = 64

// EntriesReply is an entries request's answer: the rows kept in the
// asked order and the counts of every match.
type EntriesReply struct {
	Rows                                                []model.Flow `json:"rows"`
	Matched, Established, Assured, Unreplied, Accounted int
}

// EntriesController is what an agent that lists and deletes its
// table's entries does for entries and delete requests (an agent
// without it answers that it does not).
type EntriesController interface {
	ListEntries(filter entry.Filter, sort string, desc bool, limit int) (*entry.List, error)
	// DeleteEntries deletes what filter matches, never established
	// connections, and journals it (sources.DeleteEntries).
	DeleteEntries(filter entry.Filter) (entry.Deletion, error)
}

// Errors of the entries requests; test them with errors.Is.
var (
	// ErrNoEntries is an agent that does not list entries.
	ErrNoEntries = errors.New("this agent does not list entries")
	// ErrBadReply is an agent's answer that does not fit its request.
	ErrBadReply = errors.New("a bad reply")
)

// checkEntriesRequest checks an entries or delete request's filter, sort
// and limit, and returns the filter read.
func checkEntriesRequest(req *Request) (entry.Filter, error) {
	args, err := entry.FilterWords(req.Filter)
	if err != nil {
		return entry.Filter{}, err
	}
	f, err := entry.ParseFilter(args)
	if err != nil {
		return f, err
	}
	if req.Sort != "" && !slices.Contains(entry.Sorts, req.Sort) {
		return f, fmt.Errorf("no column %q to sort by", safe.Text(req.Sort, 40))
	}
	if req.Limit < 0 || req.Limit > MaxAgentRows {
		return f, fmt.Errorf("limit %d is outside 0…%d", req.Limit, MaxAgentRows)
	}
	return f, nil
}

// listEntries answers a checked entries request.
func listEntries(c Controller, req Request) (*EntriesReply, error) {
	ec, ok := c.(EntriesController)
	if !ok {
		return nil, ErrNoEntries
	}
	f, _ := checkEntriesRequest(&req) // checked as it landed
	l, err := ec.ListEntries(f, req.Sort, req.Desc, req.Limit)
	if err != nil {
		return nil, err
	}
	return &EntriesReply{Rows: l.Rows(), Matched: l.Matched, Established: l.Established, Assured: l.Assured, Unreplied: l.Unreplied, Accounted: l.Accounted}, nil
}

// deleteEntries answers a checked delete request, which may write.
func deleteEntries(c Controller, req Request) (*entry.Deletion, error) {
	ec, ok := c.(EntriesController)
	if !ok {
		return nil, ErrNoEntries
	}
	f, _ := checkEntriesRequest(&req)
	d, err := ec.DeleteEntries(f)
	return &d, err
}

// RemoteEntries lists and deletes a stream's table's entries through its
// agent: the console's E and D over --ssh, --via and --netns.
type RemoteEntries struct{ P *Process }

// List asks the agent for the entries filter matches (at most
// MaxAgentRows rows of them), as sources.ListEntries lists them here.
func (r RemoteEntries) List(filter entry.Filter, sort string, desc bool, limit int) (*entry.List, error) {
	rep, err := r.P.Request(Request{Op: OpEntries, Filter: filter.String(), Sort: sort, Desc: desc, Limit: min(limit, MaxAgentRows)}, tuneTimeout)
	if err != nil {
		return nil, err
	}
	e := rep.Entries
	if e == nil || len(e.Rows) > MaxAgentRows || len(e.Rows) > e.Matched {
		return nil, fmt.Errorf("entries: %w: not an answer to the request", ErrBadReply)
	}
	l, err := entry.NewList(filter, sort, desc, limit)
	if err != nil {
		return nil, err
	}
	for _, f := range e.Rows {
		if err := f.CheckForeign(); err != nil {
			return nil, fmt.Errorf("entries: %w: %w", ErrBadReply, err)
		}
		l.Add(f)
	}
	l.Matched, l.Established, l.Assured, l.Unreplied, l.Accounted = e.Matched, e.Established, e.Assured, e.Unreplied, e.Accounted
	return l, nil
}

// Delete asks the agent to delete what filter matches; it never deletes
// established connections (the command line's --established does, on
// the host itself).
func (r RemoteEntries) Delete(filter entry.Filter, established bool) (entry.Deletion, error) {
	if established {
		return entry.Deletion{}, fmt.Errorf("%w: established connections are deleted on the host itself (tablefull entries --delete --established)", entry.ErrDeleteRefused)
	}
	rep, err := r.P.Request(Request{Op: OpDelete, Filter: filter.String(), Confirm: true}, tuneTimeout)
	if err != nil {
		return entry.Deletion{}, err
	}
	if rep.Deletion == nil {
		return entry.Deletion{}, fmt.Errorf("delete: %w: not an answer to the request", ErrBadReply)
	}
	return *rep.Deletion, nil
}
