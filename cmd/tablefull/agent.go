package main

import (
	"io"
	"os"
	"runtime"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/remote"
	"github.com/tablefull/tablefull/sources"
	"github.com/tablefull/tablefull/sources/tune"
)

// agent writes the stream of this host to stdout and takes control
// requests on stdin (remote.Serve) until stdin closes. It never listens.
func agent(o options, stdin io.Reader, stdout, stderr io.Writer) error {
	runtime.GOMAXPROCS(1) // it runs on the box in trouble: one P, fewer wake-ups
	ls, err := startLocalStream(o, stdout, "agent")
	if err != nil {
		return err
	}
	defer ls.Stop()
	done := make(chan error, 1)
	ag := &agentControl{live: ls.live, tuner: tune.NewLocal(o.roots, o.stateDir)}
	go func() { done <- remote.Serve(stdin, ag, os.Geteuid() == 0, ls.enc.Event, stderr) }()
	select {
	case err := <-done:
		return err
	case err := <-ls.done:
		return err
	}
}

// agentControl is what the agent does for checked control requests.
type agentControl struct {
	live  *sources.Live
	tuner *tune.Local
}

// SetInterval implements remote.Controller.
func (a *agentControl) SetInterval(d time.Duration) { a.live.SetInterval(d) }

// SetCensus implements remote.Controller.
func (a *agentControl) SetCensus(on bool) { a.live.SetCensus(on) }

// Knobs implements remote.Controller.
func (a *agentControl) Knobs() (map[string]string, uint64, bool, error) {
	cur, entry, err := a.tuner.Read()
	return cur, entry, a.tuner.Global(), err
}

// Apply implements remote.Controller.
func (a *agentControl) Apply(changes []model.Change, count uint64) ([]model.KnobResult, error) {
	return a.tuner.Apply(changes, count)
}

// Persist implements remote.Controller.
func (a *agentControl) Persist(changes []model.Change) ([]string, []string, error) {
	return a.tuner.Persist(changes)
}

// Undo implements remote.Controller.
func (a *agentControl) Undo() ([]model.KnobResult, error) { return a.tuner.Undo() }
