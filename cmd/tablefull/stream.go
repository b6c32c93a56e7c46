package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/tablefull/tablefull/remote"
	"github.com/tablefull/tablefull/sources"
	"github.com/tablefull/tablefull/sources/tune"
)

// startLocalStream samples this host and writes its stream to w: what
// both the agent and a recording are. source labels the header.
func startLocalStream(o options, w io.Writer, source string) (*sources.Live, *remote.Stream, error) {
	live, err := sources.StartLive(o.roots, o.interval)
	if err != nil {
		return nil, nil, err
	}
	st, err := remote.StartStream(live, w, source)
	if err != nil {
		live.Stop()
		return nil, nil, err
	}
	return live, st, nil
}

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
	ag := &tune.Control{Live: live, Tuner: tune.NewLocal(o.roots, o.stateDir)}
	defer ag.Wait()
	return st.ServeControl(ctx, stdin, ag, os.Geteuid() == 0, stderr)
}

// record writes a stream of this host to path until duration passes (0:
// until interrupted). It refuses to overwrite a file unless force.
func record(o options, path string, duration time.Duration, force bool) error {
	if duration < 0 {
		return usageError{fmt.Errorf("--duration %s: want a positive duration, or 0 to record until stopped", duration)}
	}
	f, err := remote.CreateFile(path, force)
	if err != nil {
		return err
	}
	defer f.Close()
	live, st, err := startLocalStream(o, f, "recorded")
	if err != nil {
		return err
	}
	defer live.Stop()
	stopped, stop := untilStopped(duration)
	defer stop()
	select {
	case <-stopped.Done():
	case err := <-st.Done:
		return err
	}
	fmt.Fprintf(os.Stderr, "tablefull: recorded %s\n", path)
	return f.Sync()
}
