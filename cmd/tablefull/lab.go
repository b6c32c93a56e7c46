package main

import (
	"errors"
	"io"

	"github.com/tablefull/tablefull/remote"
	"github.com/tablefull/tablefull/sources"
	"github.com/tablefull/tablefull/sources/lab"
	"github.com/tablefull/tablefull/sources/tune"
	"github.com/tablefull/tablefull/tui"
)

// runLab builds the scenario and shows it, in the console or as headless
// lines, through the agent inside it. A closed terminal (SIGHUP) ends it
// as q, ctrl-c or SIGTERM do, and lab.Run restores the host. --duration
// and --fix-after hold in the console as they do headless.
func runLab(o options, scenario string, lo lab.Command, w io.Writer) error {
	lo.Scenario = scenario
	if err := lo.Check(); err != nil {
		return usageError{err}
	}
	return lab.Run(lo.Scenario, lo.Options, w, func(l *lab.Lab) error {
		p, err := remote.NetnsAgent(lab.NSName)
		if err != nil {
			return err
		}
		p.Name = "lab " + lo.Scenario
		p.SetCensus(l.Scenario.Census)
		p.Start(o.interval)
		defer p.Stop()
		tee := &remote.Tee{Feed: p}
		if lo.RecordTo != "" {
			if err := tee.Start(lo.RecordTo); err != nil {
				return err
			}
			defer tee.Stop()
		}
		if lo.Headless {
			stopped, stop := untilStopped(lo.Duration)
			defer stop()
			return l.Headless(tee, stopped.Done(), lo.FixAfter, w)
		}
		a := tui.Options{Interval: o.interval, Recorder: tee, Tuner: l.Tuning(tune.NewSysctls(o.roots)), Captions: true,
			Intro: "lab " + lo.Scenario + ": " + l.Scenario.LookFor, Live: l.Clients.String, Source: "lab " + lo.Scenario}
		a.Entries, a.DeleteEntries, a.FollowEntries = sources.NetnsEntries(l.NS.Path(), o.stateDir) // E: the lab's table, from the host
		fixed := l.FixAfter(lo.FixAfter, nil)
		return errors.Join(tui.RunFor(tui.NewRoot(tui.New(tee, a)), lo.Duration), fixed())
	})
}
