package model

import (
	"github.com/tablefull/tablefull/model/safe"
	"github.com/tablefull/tablefull/model/verdict"
)

// Listener is one listening TCP socket and how full its accept queue is.
type Listener struct {
	// Addr is where it listens ("127.0.0.1:8080", "[::]:443").
	Addr string `json:"addr"`
	// Queue is the connections waiting to be accepted; Backlog the most
	// it holds: the backlog the program asked listen(2) for, capped by
	// net.core.somaxconn. A queue over Backlog is full: the next
	// handshake is dropped (ListenOverflows).
	Queue   uint32 `json:"queue"`
	Backlog uint32 `json:"backlog"`
	// Owner is the program listening (PID 0: not found).
	Owner Owner `json:"owner"`
}

// Listeners are the listeners whose accept queue is at or near its
// backlog, most pressed first, read when the namespace's listen queues
// overflowed.
type Listeners struct {
	// Listening is how many listeners there were in all.
	Listening int `json:"listening"`
	// Pressed are those at or near their backlog, most pressed first
	// (at most ListenersShown).
	Pressed []Listener `json:"pressed"`
	// Somaxconn is the namespace's net.core.somaxconn (0: not read).
	Somaxconn uint64 `json:"somaxconn,omitempty"`
	// Error says why they were not read.
	Error string `json:"error,omitempty"`
	// Note says what limited the owners' lookup (its budget of file
	// descriptors ran out: those not reached are named by cgroup).
	Note string `json:"note,omitempty"`
}

// ListenersShown bounds the pressed listeners kept.
const ListenersShown = 5

// PressedPct is how full an accept queue is to be pressed.
const PressedPct = 80

// Pressed reports whether a queue of q against backlog b is at or near
// full: at least PressedPct of it, and at least one waiting.
func Pressed(q, b uint32) bool {
	return q > 0 && uint64(q)*100 >= uint64(b)*PressedPct
}

// PressedBefore orders listeners by the harm they show: an overflowing
// queue (more waiting than its backlog: the kernel drops the next SYN)
// before one that is only pressed, then the longer queue (more
// connections stalled), then queue against backlog, then address. A
// listener with a backlog of 1 and 2 waiting is full, but a server with
// 4,097 waiting comes first: a few cheap listeners of a user's cannot
// push the real one out of the five shown.
func PressedBefore(a, b Listener) bool {
	if oa, ob := a.Queue > a.Backlog, b.Queue > b.Backlog; oa != ob {
		return oa
	}
	if a.Queue != b.Queue {
		return a.Queue > b.Queue
	}
	fa, fb := float64(a.Queue)/float64(max(1, a.Backlog)), float64(b.Queue)/float64(max(1, b.Backlog))
	if fa != fb {
		return fa > fb
	}
	return a.Addr < b.Addr
}

// String says which listener is pressed and why, in the verdict's words:
// "127.0.0.1:8080 of python3 (pid 42, slow.service): 6 waiting, backlog
// 5". A backlog equal to somaxconn may have been cut to it.
func (l Listener) String(somaxconn uint64) string {
	return verdict.Verdict{Clauses: l.Clauses(somaxconn, false)}.Text()
}

// Clauses are String's clauses, its numbers facts of the listener; led
// by "fullest:" when it is the fullest of several.
func (l Listener) Clauses(somaxconn uint64, fullest bool) []verdict.Clause {
	scope := "the listener " + safe.Text(l.Addr, 64)
	key := "listener"
	if fullest {
		key = "listener.fullest"
	}
	facts := []verdict.Fact{verdict.W("listener", safe.Text(l.Addr, 64))}
	if o := l.Owner.String(); o != "unknown" {
		key += ".owned"
		facts = append(facts, verdict.W("owner", o))
	}
	cs := []verdict.Clause{say(verdict.Who, key, facts...), say(verdict.Who, "listener.queue",
		verdict.N("waiting", max(0, l.Queue), verdict.Number).From("its accept queue (ss -lnt Recv-Q)", scope),
		verdict.N("backlog", max(0, l.Backlog), verdict.Number).From("its backlog (ss -lnt Send-Q)", scope)).After(": ")}
	som := verdict.N("somaxconn", somaxconn, verdict.Number).From("net.core.somaxconn", "the host")
	switch {
	case somaxconn > 0 && uint64(l.Backlog) == somaxconn:
		cs = append(cs, say(verdict.Who, "listener.somaxconn-cut", som).After(" "))
	case somaxconn > 0:
		cs = append(cs, say(verdict.Who, "listener.somaxconn", som).After(" "))
	}
	return cs
}
