package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/tablefull/tablefull/remote"
	"github.com/tablefull/tablefull/sources"
)

// controlRequest is one line an agent reads on stdin.
type controlRequest struct {
	remote.Request
	MS int64 `json:"ms"`
	On bool  `json:"on"`
}

// agent writes the stream of this host to stdout and takes control
// requests on stdin until stdin closes. It is read-only and never listens.
func agent(o options, stdin io.Reader, stdout io.Writer) error {
	ls, err := startLocalStream(o, stdout, "agent")
	if err != nil {
		return err
	}
	defer ls.Stop()
	done := make(chan error, 1)
	ag := &agentControl{live: ls.live, enc: ls.enc, tuner: newLocalTuner(o), root: os.Geteuid() == 0}
	go func() { done <- ag.run(stdin) }()
	select {
	case err := <-done:
		return err
	case err := <-ls.done:
		return err
	}
}

// agentControl answers control requests.
type agentControl struct {
	live  *sources.Live
	enc   *remote.Encoder
	tuner *localTuner
	root  bool
}

// run applies requests until stdin closes or asks to stop.
func (a *agentControl) run(r io.Reader) error {
	live := a.live
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		var req controlRequest
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			fmt.Fprintf(os.Stderr, "tablefull agent: ignoring bad request %q\n", sc.Text())
			continue
		}
		switch req.Op {
		case "interval":
			if d := time.Duration(req.MS) * time.Millisecond; d >= 100*time.Millisecond {
				live.SetInterval(d)
			}
		case "census":
			live.SetCensus(req.On)
		case "stop":
			return nil
		case "knobs", "apply", "persist", "undo":
			a.reply(req.Request)
		default:
			fmt.Fprintf(os.Stderr, "tablefull agent: unknown request %q\n", req.Op)
		}
	}
	return nil
}

// reply answers a tuning request with an event of the same type. Changes
// need root and an explicit confirmation: the agent is read-only
// otherwise.
func (a *agentControl) reply(req remote.Request) {
	rep := remote.Reply{ID: req.ID}
	var err error
	switch {
	case req.Op == "knobs":
		rep.Current, rep.EntryBytes, err = a.tuner.Read()
		rep.Global = a.tuner.Global()
	case !a.root || !req.Confirm:
		err = errors.New("the agent is read-only: changes need it to run as root and an explicit confirmation")
	case req.Op == "apply":
		rep.Results, err = a.tuner.Apply(req.Changes, req.Count)
	case req.Op == "persist":
		rep.Files, rep.Warnings, err = a.tuner.Persist(req.Changes)
	case req.Op == "undo":
		rep.Results, err = a.tuner.Undo()
	}
	if err != nil {
		rep.Error = err.Error()
	}
	b, _ := json.Marshal(rep)
	a.enc.Event(remote.Event{Time: time.Now(), Type: req.Op, Text: string(b)})
}
