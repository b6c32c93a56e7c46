package cli

import (
	"fmt"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/remote/agent"
	"github.com/tablefull/tablefull/remote/promread"
	"github.com/tablefull/tablefull/remote/recording"
	"github.com/tablefull/tablefull/sources"
	"github.com/tablefull/tablefull/sources/namespaces"
	"github.com/tablefull/tablefull/sources/nsenter"
	"github.com/tablefull/tablefull/sources/tune"
	"github.com/tablefull/tablefull/tui"
)

// console opens the live console on this host, or a tab on each remote
// named by --ssh, --via and --netns.
func console(o options, ds agent.Dests) error {
	longRunning()
	dests, stop, err := ds.Start(o.interval)
	if err != nil {
		return err
	}
	defer stop()
	var apps []*tui.App
	for _, d := range dests {
		access, err := accessOf(o, d.P, d.Netns)
		if err != nil {
			return err
		}
		apps = append(apps, appOf(o, d.P, access, d.Source))
	}
	if len(apps) == 0 {
		live, err := sources.StartLive(o.roots, o.interval)
		if err != nil {
			return err
		}
		defer live.Stop()
		var opened agent.Processes
		defer opened.Stop()
		tee := &recording.Tee{Feed: live}
		apps = append(apps, tui.New(tee, tui.Options{Interval: o.interval, Recorder: tee, Tuner: tune.NewLocal(o.roots, o.stateDir),
			OpenNamespace: openNamespace(o, &opened), Entries: sources.ListEntries, DeleteEntries: sources.EntriesDeleterIn(o.stateDir), FollowEntries: sources.EntriesFollower(o.roots.Proc)}))
	}
	return tui.Run(tui.NewRoot(apps...))
}

// appOf is a stream's console, recordable, its target reached by access.
func appOf(o options, p *agent.Process, access tui.Options, source string) *tui.App {
	tee := &recording.Tee{Feed: p}
	access.Interval, access.Recorder, access.Source = o.interval, tee, source
	return tui.New(tee, access)
}

// openNamespace opens one of the host's other namespaces from the panel
// as --netns does: the agent inside it.
func openNamespace(o options, opened *agent.Processes) tui.OpenNamespace {
	return func(ns model.NetNS) (*tui.App, func(), error) {
		path := namespaces.File(o.roots.Proc, ns)
		p, err := agent.NetnsAgent(path)
		if err != nil {
			return nil, nil, err
		}
		p.Name = ns.Label()
		access, err := accessOf(o, p, path)
		if err != nil {
			return nil, nil, err
		}
		opened.Start(p, o.interval)
		return appOf(o, p, access, ns.Label()), p.Stop, nil
	}
}

// accessOf reaches a target: a namespace here from the host, others by agent.
func accessOf(o options, p *agent.Process, netnsPath string) (a tui.Options, err error) {
	if netnsPath == "" {
		re := agent.RemoteEntries{P: p}
		return tui.Options{Tuner: &agent.RemoteTuner{P: p}, Entries: re.List, DeleteEntries: re.Delete, FollowEntries: re.Follow}, nil
	}
	opened, err := nsenter.Open(netnsPath) // from now on, each action checks the file still names this namespace
	if err != nil {
		return a, err
	}
	a.Entries, a.DeleteEntries, a.FollowEntries = sources.NetnsEntries(opened, o.stateDir)
	a.Tuner, err = tune.ForNetns(o.roots, o.stateDir, netnsPath)
	return a, err
}

// minFleetRefresh is the shortest refresh of the fleet view: each is a
// round of queries to Prometheus.
const minFleetRefresh = 5 * time.Second

// fleet opens the console over the fleet Prometheus holds.
func fleet(o options, c promread.Config) error {
	if o.intervalSet && o.interval < minFleetRefresh {
		return usageError{fmt.Errorf("--interval %s: the fleet refreshes at least every %s (one query round per refresh)", o.interval, minFleetRefresh)}
	}
	longRunning()
	c.SecretsFromEnv()
	r, err := promread.New(c)
	if err != nil {
		return err
	}
	var opened agent.Processes
	defer opened.Stop()
	return tui.Run(tui.NewFleet(r, tui.FleetOptions{Interval: max(o.interval, minFleetRefresh), Window: c.Window, Live: liveOverSSH(o, &opened)}))
}

// liveOverSSH opens an instance's host as --ssh would.
func liveOverSSH(o options, opened *agent.Processes) func(instance string) (*tui.App, func(), error) {
	return func(instance string) (*tui.App, func(), error) {
		p, err := agent.InstanceAgent(instance)
		if err != nil {
			return nil, nil, err
		}
		opened.Start(p, o.interval)
		access, _ := accessOf(o, p, "") // an agent's: no error
		return appOf(o, p, access, "ssh "+p.Name), p.Stop, nil
	}
}
