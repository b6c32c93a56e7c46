package cli

import (
	"io"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/tunecmd"
	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/remote/agent"
	"github.com/tablefull/tablefull/remote/oneshot"
	"github.com/tablefull/tablefull/sources"
	"github.com/tablefull/tablefull/sources/lab"
)

// snapshot prints one sample of the host and exits.
func snapshot(o options, asJSON bool, w io.Writer) error {
	c, err := sources.NewCollector(o.roots)
	if err != nil {
		return err
	}
	defer c.Close()
	c.DrainKernelLog = true
	return oneshot.WriteSnapshot(w, oneshot.Snapshot{Schema: oneshot.SnapshotSchema, Host: c.Host(), Sample: c.Sample(time.Now(), 0)}, asJSON)
}

// census prints what fills this namespace's table, as the console takes it.
func census(o options, asJSON bool, w io.Writer) error {
	start := time.Now()
	c, err := sources.TakeCensus(o.roots.Proc, nil)
	if err != nil {
		return err
	}
	return oneshot.WriteCensus(w, c, time.Since(start), asJSON)
}

// tuneCommand is tablefull tune measuring this host at 1 s, or --netns's agent.
func tuneCommand(o options, t tunecmd.CommandOptions, stdout io.Writer) error {
	t.StateDir = o.stateDir
	t.Feed = func() (model.Feed, error) { return sources.StartLive(o.roots, time.Second) }
	t.UndoAlso = func() (string, error) { return lab.RepairIdle(lab.Paths{Proc: o.roots.Proc, Sys: o.roots.Sys}) }
	if t.Netns != "" {
		path, err := agent.NetnsPath(t.Netns)
		if err != nil {
			return usageError{err}
		}
		t.NetnsPath = path
		t.Feed = func() (model.Feed, error) { return agent.StartNetnsAgent(t.Netns, time.Second) }
	}
	return tunecmd.Command(o.roots, t, stdout)
}
