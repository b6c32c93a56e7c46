package main

import (
	"io"
	"os"
	"os/signal"
	"runtime"
	"syscall"

	"github.com/tablefull/tablefull/remote"
	"github.com/tablefull/tablefull/sources/tune"
)

// agent writes the stream of this host to stdout and takes control
// requests on stdin (remote.Serve) until stdin closes. It never listens.
// A session cut mid-apply (stdin closed, stdout broken, a hangup) ends
// the agent only once the write under way is done, with its undo record.
func agent(o options, stdin io.Reader, stdout, stderr io.Writer) error {
	runtime.GOMAXPROCS(1)          // it runs on the box in trouble: one P, fewer wake-ups
	signal.Ignore(syscall.SIGPIPE) // a broken stdout is an error to end on, not a kill mid-apply
	ctx, stop := untilStopped(0)
	defer stop()
	live, st, err := startLocalStream(o, stdout, "agent")
	if err != nil {
		return err
	}
	defer live.Stop()
	done := make(chan error, 1)
	ag := &tune.Control{Live: live, Tuner: tune.NewLocal(o.roots, o.stateDir)}
	defer ag.Wait()
	go func() { done <- remote.Serve(stdin, ag, os.Geteuid() == 0, st.Enc.Event, stderr) }()
	select {
	case err := <-done:
		return err
	case err := <-st.Done:
		return err
	case <-ctx.Done():
		return nil
	}
}
