package main

import (
	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/tuning"
	"github.com/tablefull/tablefull/remote"
	"github.com/tablefull/tablefull/sources"
	"github.com/tablefull/tablefull/sources/namespaces"
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
		apps = append(apps, appOf(o, d.P, tuner, d.Source))
	}
	if len(apps) == 0 {
		live, err := sources.StartLive(o.roots, o.interval)
		if err != nil {
			return err
		}
		defer live.Stop()
		var opened remote.Processes
		defer opened.Stop()
		tee := &remote.Tee{Feed: live}
		apps = append(apps, tui.New(tee, tui.Options{Interval: o.interval, Recorder: tee, Tuner: tune.NewLocal(o.roots, o.stateDir),
			OpenNamespace: openNamespace(o, &opened)}))
	}
	return tui.Run(tui.NewRoot(apps...))
}

// appOf is the console of a stream's process, recordable, tuned by tuner.
func appOf(o options, p *remote.Process, tuner tuning.Tuner, source string) *tui.App {
	tee := &remote.Tee{Feed: p}
	return tui.New(tee, tui.Options{Interval: o.interval, Recorder: tee, Tuner: tuner, Source: source})
}

// openNamespace opens one of the host's other namespaces from the panel
// as --netns does: the agent inside it.
func openNamespace(o options, opened *remote.Processes) tui.OpenNamespace {
	return func(ns model.NetNS) (*tui.App, func(), error) {
		path := namespaces.File(o.roots.Proc, ns)
		p, err := remote.NetnsAgent(path)
		if err != nil {
			return nil, nil, err
		}
		p.Name = ns.Label()
		tuner, err := tunerOf(o, p, path)
		if err != nil {
			return nil, nil, err
		}
		opened.Start(p, o.interval)
		return appOf(o, p, tuner, ns.Label()), p.Stop, nil
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
