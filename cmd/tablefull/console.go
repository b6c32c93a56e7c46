package main

import (
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
		tee := &remote.Tee{Source: d.P}
		apps = append(apps, tui.New(tee, tui.Options{Interval: o.interval, Recorder: tee, Tuner: &remote.RemoteTuner{P: d.P}, Source: d.Source}))
	}
	if len(apps) == 0 {
		c, err := sources.NewCollector(o.roots)
		if err != nil {
			return err
		}
		live := sources.NewLive(c, o.interval)
		defer live.Stop()
		tee := &remote.Tee{Source: live}
		apps = append(apps, tui.New(tee, tui.Options{Interval: o.interval, Recorder: tee, Tuner: tune.NewLocal(o.roots, o.stateDir)}))
	}
	return tui.Run(tui.NewRoot(apps...))
}
