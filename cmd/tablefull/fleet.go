package main

import (
	"os"
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
	var opened remote.Processes
	defer opened.Stop()
	return tui.Run(tui.NewFleet(r, tui.FleetOptions{Interval: max(o.interval, minFleetRefresh), Window: f.since, Live: liveOverSSH(o, &opened)}))
}

// liveOverSSH opens an instance's host as --ssh would.
func liveOverSSH(o options, opened *remote.Processes) func(instance string) (*tui.App, func(), error) {
	return func(instance string) (*tui.App, func(), error) {
		p, err := remote.InstanceAgent(instance)
		if err != nil {
			return nil, nil, err
		}
		opened.Start(p, o.interval)
		return appOf(o, p, &remote.RemoteTuner{P: p}, "ssh "+p.Name), p.Stop, nil
	}
}
