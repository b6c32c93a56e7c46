package cli

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/tablefull/tablefull/remote/agent"
	"github.com/tablefull/tablefull/remote/recording"
	"github.com/tablefull/tablefull/remote/stream"
	"github.com/tablefull/tablefull/sources"
	"github.com/tablefull/tablefull/sources/counters"
	"github.com/tablefull/tablefull/sources/tune"
)

// runAgent writes the stream of this host to stdout and takes control
// requests on stdin (agent.Serve) until stdin closes. It never listens.
// A session cut mid-apply (stdin closed, stdout broken, a hangup) ends
// the agent only once the write under way is done, with its undo record.
func runAgent(o options, stdin io.Reader, stdout, stderr io.Writer) error {
	longRunning()                  // it runs on the box in trouble: fewer wake-ups
	signal.Ignore(syscall.SIGPIPE) // a broken stdout is an error to end on, not a kill mid-apply
	ctx, stop := untilStopped(0)
	defer stop()
	live, err := sources.StartLive(o.roots, o.interval)
	if err != nil {
		return err
	}
	defer live.Stop()
	st, err := stream.Start(live, stdout, "agent")
	if err != nil {
		return err
	}
	table := counters.NewTable(o.roots.Proc)
	ag := &tune.Control{Live: live, Tuner: tune.NewLocal(o.roots, o.stateDir), MemTotal: live.Host().MemTotal,
		CountNow: func() (uint64, error) { c, err := table.Read(); return max(c.Count, c.Peak), err }, Entries: sources.ListEntries, Deleter: sources.EntriesDeleterIn(o.stateDir), Follow: sources.EntriesFollower(o.roots.Proc)}
	defer ag.Wait()
	return agent.ServeControl(ctx, st, stdin, ag, os.Geteuid() == 0, stderr)
}

// record writes a stream of this host to path until duration passes (0:
// until interrupted). It refuses to overwrite a file unless force.
func record(o options, path string, duration time.Duration, force bool) error {
	if duration < 0 {
		return usageError{fmt.Errorf("--duration %s: want a positive duration, or 0 to record until stopped", duration)}
	}
	f, err := recording.CreateFile(path, force)
	if err != nil {
		return err
	}
	defer f.Close()
	live, err := sources.StartLive(o.roots, o.interval)
	if err != nil {
		return err
	}
	defer live.Stop()
	stopped, stop := untilStopped(duration)
	defer stop()
	if err := recording.Record(stopped, live, f); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "tablefull: recorded %s\n", path)
	return nil
}
