package main

import (
	"io"
	"os"
	"runtime"

	"github.com/tablefull/tablefull/remote"
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
	ag := &tune.Control{Live: ls.live, Tuner: tune.NewLocal(o.roots, o.stateDir)}
	go func() { done <- remote.Serve(stdin, ag, os.Geteuid() == 0, ls.enc.Event, stderr) }()
	select {
	case err := <-done:
		return err
	case err := <-ls.done:
		return err
	}
}
