package main

import (
	"errors"
	"io"
	"runtime"
	"time"

	"github.com/tablefull/tablefull/remote"
	"github.com/tablefull/tablefull/remote/exporter"
	"github.com/tablefull/tablefull/sources"
)

// exportMetrics serves this host's (or a namespace's) table on /metrics
// at listen until SIGINT or SIGTERM.
func exportMetrics(o options, listen, netns string) error {
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
	return exporter.Serve(ctx, listen, exporter.Handler(e))
}
