package main

import (
	"path/filepath"
	"strconv"
	"sync"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/tuning"
	"github.com/tablefull/tablefull/remote"
	"github.com/tablefull/tablefull/sources"
	"github.com/tablefull/tablefull/sources/tune"
	"github.com/tablefull/tablefull/tui"
)

// console opens the live console on this host, or a tab on each remote
// named by --ssh, --via and --netns.
func console(o options, ssh, via, netns []string, deploy bool) error {
	dests, stop, err := remote.StartDests(o.interval, ssh, via, netns, deploy)
	if err != nil {
		return err
	}
	defer stop()
	var apps []*tui.App
	for _, d := range dests {
		tuner, err := tunerOf(o, d.P, d.Netns)
		if err != nil {
			return err
		}
		tee := &remote.Tee{Feed: d.P}
		apps = append(apps, tui.New(tee, tui.Options{Interval: o.interval, Recorder: tee, Tuner: tuner, Source: d.Source}))
	}
	if len(apps) == 0 {
		live, err := sources.StartLive(o.roots, o.interval)
		if err != nil {
			return err
		}
		defer live.Stop()
		tee := &remote.Tee{Feed: live}
		open, stopAll := openNamespace(o)
		defer stopAll()
		apps = append(apps, tui.New(tee, tui.Options{Interval: o.interval, Recorder: tee, Tuner: tune.NewLocal(o.roots, o.stateDir),
			OpenNamespace: open}))
	}
	return tui.Run(tui.NewRoot(apps...))
}

// openNamespace opens one of the host's other namespaces from the panel
// as --netns does: the agent inside it, through the process it was read
// through. stopAll ends every one opened (also one still on screen when
// q quits: its command runs in a process group of its own).
func openNamespace(o options) (tui.OpenNamespace, func()) {
	var mu sync.Mutex // open runs as a console command, off its loop
	var stops []func()
	open := func(ns model.NetNS) (*tui.App, func(), error) {
		path := filepath.Join(o.roots.Proc, strconv.Itoa(ns.PID), "ns", "net")
		if ns.PID <= 0 { // no process in it: its bind mount
			path = ns.Path
		}
		argv, err := remote.NetnsArgv(path)
		if err != nil {
			return nil, nil, err
		}
		p := &remote.Process{Argv: argv, Name: ns.Label()}
		tuner, err := tunerOf(o, p, path)
		if err != nil {
			return nil, nil, err
		}
		p.Start(o.interval)
		mu.Lock()
		stops = append(stops, p.Stop)
		mu.Unlock()
		tee := &remote.Tee{Feed: p}
		return tui.New(tee, tui.Options{Interval: o.interval, Recorder: tee, Tuner: tuner, Source: ns.Label()}), p.Stop, nil
	}
	return open, func() {
		mu.Lock()
		defer mu.Unlock()
		for _, stop := range stops {
			stop()
		}
	}
}

// tunerOf is the one tuner of a stream's target: a namespace of this
// host is tuned from the host (its global knobs too), any other stream
// by its agent.
func tunerOf(o options, p *remote.Process, netnsPath string) (tuning.Tuner, error) {
	if netnsPath == "" {
		return &remote.RemoteTuner{P: p}, nil
	}
	return tune.ForNetns(o.roots, o.stateDir, netnsPath)
}
