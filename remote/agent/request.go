package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/safe"
	"github.com/tablefull/tablefull/model/tuning"
	"github.com/tablefull/tablefull/remote/stream"
)

// replies routes reply events to the requests waiting for them.
type replies struct {
	mu      sync.Mutex
	next    int64
	waiting map[int64]chan Reply
}

// deliver hands a reply event to its request; other events are ignored.
func (r *replies) deliver(ev stream.Event) {
	var rep Reply
	if json.Unmarshal([]byte(ev.Text), &rep) != nil || rep.ID == 0 {
		return
	}
	r.mu.Lock()
	c := r.waiting[rep.ID]
	delete(r.waiting, rep.ID)
	r.mu.Unlock()
	if c != nil {
		c <- rep
	}
}

// cut answers every request still waiting when the agent's stream ends:
// its link was cut before the agent answered, so what it did is unknown
// until the knobs are read again.
func (r *replies) cut() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for id, c := range r.waiting {
		c <- Reply{ID: id, linkCut: true}
		delete(r.waiting, id)
	}
}

// ErrNoReply reports that the agent did not answer in time.
var ErrNoReply = errors.New("the agent did not answer")

// Request sends req to the running agent and waits for its reply.
func (p *Process) Request(req Request, timeout time.Duration) (Reply, error) {
	p.replies.mu.Lock()
	p.replies.next++
	req.ID = p.replies.next
	if p.replies.waiting == nil {
		p.replies.waiting = map[int64]chan Reply{}
	}
	c := make(chan Reply, 1)
	p.replies.waiting[req.ID] = c
	p.replies.mu.Unlock()
	var err error
	p.mu.Lock()
	in := p.stdin
	if in != nil {
		err = writeRequest(in, req)
	}
	p.mu.Unlock()
	if in == nil {
		return Reply{}, fmt.Errorf("%s: %w", req.Op, ErrDisconnected)
	}
	if err != nil {
		return Reply{}, err
	}
	select {
	case rep := <-c:
		if rep.linkCut {
			return Reply{}, fmt.Errorf("%s: %w", req.Op, tuning.ErrLinkCut)
		}
		if rep.Error != "" {
			return rep, errors.New(rep.Error)
		}
		return rep, nil
	case <-time.After(timeout):
		p.replies.mu.Lock()
		delete(p.replies.waiting, req.ID)
		p.replies.mu.Unlock()
		return Reply{}, fmt.Errorf("%s: %w within %s: %w", req.Op, ErrNoReply, timeout, tuning.ErrLinkCut)
	}
}

// RemoteTuner tunes the host an agent runs on, through control requests
// (tuning.Tuner). The agent refuses unless it runs as root; every change
// it makes carries an explicit confirmation from the console (the user's
// y). What the agent says of its knobs is checked where it lands.
type RemoteTuner struct {
	P *Process
}

const tuneTimeout = 15 * time.Second

// Read asks the agent for its knobs.
func (t *RemoteTuner) Read() (tuning.KnobState, error) {
	rep, err := t.P.Request(Request{Op: OpKnobs}, tuneTimeout)
	if err != nil {
		return tuning.KnobState{}, err
	}
	if rep.Knobs == nil {
		return tuning.KnobState{}, fmt.Errorf("knobs: %w: the agent sent none", ErrBadRequest)
	}
	k := rep.Knobs.Check()
	if k.Note == "" {
		k.Note = "remote: changes are made by the agent on " + safe.Text(t.P.Host().Name, 64) + " (it must run as root)"
	}
	return k, nil
}

// Apply asks the agent to apply changes.
func (t *RemoteTuner) Apply(changes []tuning.Change, count uint64) ([]knob.Result, error) {
	rep, err := t.P.Request(Request{Op: OpApply, Confirm: true, Changes: changes, Count: count}, tuneTimeout)
	return rep.Results, err
}

// Persist asks the agent to write the boot-time files there.
func (t *RemoteTuner) Persist(changes []tuning.Change) ([]string, []string, error) {
	rep, err := t.P.Request(Request{Op: OpPersist, Confirm: true, Changes: changes}, tuneTimeout)
	return rep.Files, rep.Warnings, err
}

// Undo asks the agent to undo its last apply.
func (t *RemoteTuner) Undo() ([]knob.Result, error) {
	rep, err := t.P.Request(Request{Op: OpUndo, Confirm: true}, tuneTimeout)
	return rep.Results, err
}
