package cli

import (
	"fmt"
	"io"

	"github.com/prometheus/common/version"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/remote/agent"
	"github.com/tablefull/tablefull/remote/exporter"
	"github.com/tablefull/tablefull/sources"
)

// exportMetrics serves this host's (or a namespace's, through its
// agent) table until SIGINT, SIGTERM or SIGHUP.
func exportMetrics(o options, c exporter.Config, stderr io.Writer) error {
	if c.Window < o.interval {
		return usageError{fmt.Errorf("--window %s is shorter than --interval %s", c.Window, o.interval)}
	}
	longRunning() // an exporter on every host should not wake more
	for _, missing := range sources.MissingCapabilities(o.roots) {
		fmt.Fprintf(stderr, "tablefull exporter: %s\n", missing)
	}
	var feed model.Feed
	if c.Netns != "" {
		p, err := agent.StartNetnsAgent(c.Netns, o.interval)
		if err != nil {
			return err
		}
		defer p.Stop()
		feed = p
	} else {
		live, err := sources.StartLive(o.roots, o.interval)
		if err != nil {
			return err
		}
		live.SetQuiet(sources.QuietEvery) // far from the cap: a whole sample every 10 s, the count and drops every interval
		defer live.Stop()
		feed = live
	}
	c.Version, c.Revision = exporter.BuildVersion(), version.GetRevision()
	c.Journal = o.stateDir + "/" + sources.JournalName
	ctx, stop := untilStopped(0)
	defer stop()
	return exporter.Run(ctx, feed, c, stderr)
}
