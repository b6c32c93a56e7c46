package main

import (
	"errors"
	"io"
	"runtime"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/remote"
	"github.com/tablefull/tablefull/remote/exporter"
	"github.com/tablefull/tablefull/sources"
)

// exporterFeed is what the exporter reads: this host's samples, or a
// namespace's through its agent.
type exporterFeed interface {
	Next() (model.Sample, error)
}

// exportMetrics serves this host's (or a namespace's) table on /metrics
// at listen until SIGINT or SIGTERM.
func exportMetrics(o options, listen, netns string) error {
	runtime.GOMAXPROCS(1) // one P: an exporter on every host should not wake more
	var feed exporterFeed
	if netns != "" {
		argv, err := netnsArgv(netns)
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
	go func() {
		start, first := time.Now(), true
		for {
			s, err := feed.Next()
			switch {
			case errors.Is(err, sources.ErrStopped), errors.Is(err, io.EOF):
				return
			case err != nil:
				e.Fail(err)
				continue
			}
			// The first read of the kernel log is its whole ring buffer:
			// those lines and suppressions happened before the exporter.
			s = remote.SinceStart(s, start)
			if first {
				s.Kernel.Suppressed, first = 0, false
			}
			e.Observe(s)
		}
	}()
	ctx, stop := untilStopped(0)
	defer stop()
	return exporter.Serve(ctx, listen, exporter.Handler(e))
}
