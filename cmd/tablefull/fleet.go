package main

import (
	"os"
	"strings"
	"time"

	"github.com/tablefull/tablefull/remote"
	"github.com/tablefull/tablefull/remote/promread"
	"github.com/tablefull/tablefull/tui"
)

// fleetOptions are the flags of the console over Prometheus.
type fleetOptions struct {
	url, selector, user, caFile string
	since                       time.Duration
}

// Environment variables for Prometheus's secrets: a flag would show them
// in ps.
const (
	envPassword = "TABLEFULL_PROMETHEUS_PASSWORD"
	envToken    = "TABLEFULL_PROMETHEUS_TOKEN"
)

// minFleetRefresh is the shortest refresh of the fleet view: each is a
// round of queries to Prometheus.
const minFleetRefresh = 5 * time.Second

// fleet opens the console over the fleet Prometheus holds.
func fleet(o options, f fleetOptions) error {
	r, err := promread.New(promread.Config{URL: f.url, Selector: f.selector, Window: f.since,
		BasicUser: f.user, BasicPassword: os.Getenv(envPassword), BearerToken: os.Getenv(envToken), CAFile: f.caFile})
	if err != nil {
		return err
	}
	// Every live feed opened is stopped when the console ends, also one
	// still on screen when q quits: its ssh runs in a process group of
	// its own and would outlive the console.
	var stops []func()
	defer func() {
		for _, stop := range stops {
			stop()
		}
	}()
	open := liveOverSSH(o)
	live := func(instance string) (*tui.App, func(), error) {
		a, stop, err := open(instance)
		if err == nil {
			stops = append(stops, stop)
		}
		return a, stop, err
	}
	view := tui.NewFleet(r, tui.FleetOptions{Interval: max(o.interval, minFleetRefresh), Window: f.since, Live: live})
	return tui.Run(view)
}

// liveOverSSH opens an instance's host as --ssh would: the host is the
// instance label without its port.
func liveOverSSH(o options) func(instance string) (*tui.App, func(), error) {
	return func(instance string) (*tui.App, func(), error) {
		host := instance
		if i := strings.LastIndexByte(instance, ':'); i > 0 && !strings.HasSuffix(instance, "]") {
			host = instance[:i]
		}
		argv, err := remote.SSHArgv(host, "tablefull", "agent")
		if err != nil {
			return nil, nil, err
		}
		p := &remote.Process{Argv: argv, Name: host, Hint: remote.FullTableHint}
		p.Start(o.interval)
		tee := &remote.Tee{Feed: p}
		return tui.New(tee, tui.Options{Interval: o.interval, Recorder: tee, Tuner: &remote.RemoteTuner{P: p}, Source: "ssh " + host}), p.Stop, nil
	}
}
