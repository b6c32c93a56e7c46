package main

import (
	"fmt"
	"time"

	"github.com/tablefull/tablefull/remote"
	"github.com/tablefull/tablefull/remote/promread"
	"github.com/tablefull/tablefull/tui"
)

// minFleetRefresh is the shortest refresh of the fleet view: each is a
// round of queries to Prometheus.
const minFleetRefresh = 5 * time.Second

// fleet opens the console over the fleet Prometheus holds.
func fleet(o options, c promread.Config) error {
	if o.intervalSet && o.interval < minFleetRefresh {
		return usageError{fmt.Errorf("--interval %s: the fleet refreshes at least every %s (one query round per refresh)", o.interval, minFleetRefresh)}
	}
	c.SecretsFromEnv()
	r, err := promread.New(c)
	if err != nil {
		return err
	}
	var opened remote.Processes
	defer opened.Stop()
	return tui.Run(tui.NewFleet(r, tui.FleetOptions{Interval: max(o.interval, minFleetRefresh), Window: c.Window, Live: liveOverSSH(o, &opened)}))
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
