package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"time"

	"github.com/tablefull/tablefull/remote"
	"github.com/tablefull/tablefull/remote/exporter"
	"github.com/tablefull/tablefull/sources"
)

// exportMetrics serves this host's (or a namespace's) table on /metrics
// at listen until SIGINT, SIGTERM or SIGHUP, saying on stderr where it
// listens once it does.
func exportMetrics(o options, listen, netns string, stderr io.Writer) error {
	runtime.GOMAXPROCS(1) // one P: an exporter on every host should not wake more
	var feed exporter.Feed
	if netns != "" {
		argv, err := remote.NetnsArgv(netns)
		if err != nil {
			return err
		}
		p := &remote.Process{Argv: argv, Name: "netns " + netns}
		p.Start(o.interval)
		defer p.Stop()
		feed = p
	} else {
		c, err := sources.NewCollector(o.roots)
		if err != nil {
			return err
		}
		live := sources.NewLive(c, o.interval)
		defer live.Stop()
		feed = live
	}
	e := exporter.New(version)
	go e.Follow(feed, time.Now(), func(err error) bool {
		return errors.Is(err, sources.ErrStopped) || errors.Is(err, io.EOF)
	})
	ctx, stop := untilStopped(0)
	defer stop()
	what := "this host's conntrack table"
	if netns != "" {
		what = "network namespace " + netns + "'s conntrack table (through its agent)"
	}
	return exporter.Serve(ctx, listen, exporter.Handler(e), func(a net.Addr) {
		fmt.Fprintf(stderr, "tablefull exporter %s: serving %s on http://%s/metrics\n", version, what, a)
	})
}
