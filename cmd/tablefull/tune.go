package main

import (
	"io"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/remote"
	"github.com/tablefull/tablefull/sources"
	"github.com/tablefull/tablefull/sources/kernelfs"
	"github.com/tablefull/tablefull/sources/tune"
)

// tuneCommand is tablefull tune, with --netns wired to the namespace's
// agent.
func tuneCommand(o options, t tune.CommandOptions, stdout io.Writer) error {
	t.StateDir = o.stateDir
	t.Feed = localFeed(o.roots)
	if t.Netns != "" {
		path, err := remote.NetnsPath(t.Netns)
		if err != nil {
			return usageError{err}
		}
		t.NetnsPath = path
		t.Feed = func() (model.Feed, error) {
			p, err := remote.NetnsAgent(t.Netns)
			if err != nil {
				return nil, err
			}
			p.MinBackoff = 200 * time.Millisecond
			p.Start(time.Second)
			return p, nil
		}
	}
	return tune.Command(o.roots, t, stdout)
}

// localFeed is what tune measures on this host: its collector at 1 s.
func localFeed(roots kernelfs.Roots) func() (model.Feed, error) {
	return func() (model.Feed, error) { return sources.StartLive(roots, time.Second) }
}
