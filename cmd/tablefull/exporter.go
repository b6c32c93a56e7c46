package main

import (
	"fmt"
	"io"
	"runtime"

	"github.com/prometheus/common/version"
	flag "github.com/spf13/pflag"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/remote"
	"github.com/tablefull/tablefull/remote/exporter"
	"github.com/tablefull/tablefull/sources"
)

func exporterFlags(fs *flag.FlagSet, v *flagValues) {
	v.ex.AddFlags(fs)
	fs.StringVar(&v.oneNS, "netns", "", "export network namespace `NAME|PATH` instead of this one (through its agent)")
}

// exportMetrics serves this host's (or a namespace's, through its
// agent) table until SIGINT, SIGTERM or SIGHUP.
func exportMetrics(o options, v *flagValues, stderr io.Writer) error {
	c := v.ex
	if c.Window < o.interval {
		return usageError{fmt.Errorf("--window %s is shorter than --interval %s", c.Window, o.interval)}
	}
	runtime.GOMAXPROCS(1) // one P: an exporter on every host should not wake more
	for _, missing := range sources.MissingCapabilities(o.roots) {
		fmt.Fprintf(stderr, "tablefull exporter: %s\n", missing)
	}
	var feed model.Feed
	c.What = "this host's conntrack table"
	if v.oneNS != "" {
		p, err := remote.NetnsAgent(v.oneNS)
		if err != nil {
			return err
		}
		p.Start(o.interval)
		defer p.Stop()
		feed, c.What = p, "network namespace "+v.oneNS+"'s conntrack table (through its agent)"
	} else {
		live, err := sources.StartLive(o.roots, o.interval)
		if err != nil {
			return err
		}
		live.SetQuiet(sources.QuietEvery) // far from the cap: a whole sample every 10 s, the count and drops every interval
		defer live.Stop()
		feed = live
	}
	c.Version, c.Revision = buildVersion(), version.GetRevision()
	ctx, stop := untilStopped(0)
	defer stop()
	return exporter.Run(ctx, feed, c, stderr)
}
