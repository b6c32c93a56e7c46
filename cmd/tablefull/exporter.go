package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"time"

	flag "github.com/spf13/pflag"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/remote"
	"github.com/tablefull/tablefull/remote/exporter"
	"github.com/tablefull/tablefull/sources"
)

// exporterOptions are tablefull exporter's own flags: the
// exporter-toolkit's web flags, as every Prometheus exporter takes them,
// the connection cap and the window.
type exporterOptions struct {
	addresses, listen []string
	configFile, path  string
	heartbeat         string
	perCPU            bool
	maxConns          int
	window            time.Duration
}

func exporterFlags(fs *flag.FlagSet, v *flagValues) {
	ex := &v.ex
	fs.StringArrayVar(&ex.addresses, "web.listen-address", nil, "serve on `ADDR` (repeatable; default "+exporter.DefaultListen+": another address than loopback is your choice to make)")
	fs.StringArrayVar(&ex.listen, "listen", nil, "the same as --web.listen-address (`ADDR`)")
	fs.StringVar(&ex.configFile, "web.config.file", "", "exporter-toolkit web config `FILE`: TLS, client certificates, basic auth")
	fs.StringVar(&ex.path, "web.telemetry-path", "/metrics", "`PATH` of the exposition")
	fs.IntVar(&ex.maxConns, "web.max-connections", exporter.DefaultMaxConns, "at most `N` open connections (the oldest idle closed first)")
	fs.DurationVar(&ex.window, "window", exporter.DefaultWindow, "the peak and held verdicts cover this trailing `span`, for every scraper alike")
	fs.StringVar(&v.oneNS, "netns", "", "export network namespace `NAME|PATH` instead of this one (through its agent)")
	fs.BoolVar(&ex.perCPU, "per-cpu-series", false, "also serve each CPU's conntrack counters (a series per CPU and counter; their sums are always served)")
	fs.StringVar(&ex.heartbeat, "heartbeat", "", "touch `FILE` at each sample, for `tablefull alive` (a liveness probe that opens no connection)")
}

// exportMetrics serves this host's (or a namespace's) table until
// SIGINT, SIGTERM or SIGHUP, saying on stderr where it listens once it
// does.
func exportMetrics(o options, ex exporterOptions, netns string, stderr io.Writer) error {
	if ex.window < o.interval {
		return usageError{fmt.Errorf("--window %s is shorter than --interval %s", ex.window, o.interval)}
	}
	runtime.GOMAXPROCS(1) // one P: an exporter on every host should not wake more
	for _, missing := range sources.MissingCapabilities(o.roots) {
		fmt.Fprintf(stderr, "tablefull exporter: %s\n", missing)
	}
	var feed model.Feed
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
		live.SetQuiet(sources.QuietEvery) // far from the cap: a whole sample every 10 s, the count and drops every interval
		defer live.Stop()
		feed = live
	}
	if ex.heartbeat != "" {
		hb, err := exporter.NewHeartbeat(feed, ex.heartbeat)
		if err != nil {
			return err
		}
		feed = hb
	}
	e := exporter.New(version, ex.window)
	e.Revision, e.PerCPU = revisionOf(), ex.perCPU
	go e.Follow(feed, time.Now(), func(err error) bool {
		return errors.Is(err, sources.ErrStopped) || errors.Is(err, io.EOF)
	})
	ctx, stop := untilStopped(0)
	defer stop()
	what := "this host's conntrack table"
	if netns != "" {
		what = "network namespace " + netns + "'s conntrack table (through its agent)"
	}
	scheme := "http"
	if ex.configFile != "" {
		scheme = "http(s, as " + ex.configFile + " says)"
	}
	w := exporter.Web{Addresses: append(ex.addresses, ex.listen...), ConfigFile: ex.configFile, MaxConns: ex.maxConns}
	err := exporter.Serve(ctx, w, exporter.Handler(e, ex.path), func(a net.Addr) {
		fmt.Fprintf(stderr, "tablefull exporter %s: serving %s on %s://%s%s\n", version, what, scheme, a, ex.path)
	})
	if ctx.Err() != nil { // a signal, said as systemd's journal should read it
		fmt.Fprintf(stderr, "tablefull exporter: stopping (%v)\n", context.Cause(ctx))
	}
	return err
}
