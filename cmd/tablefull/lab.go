package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tablefull/tablefull/remote"
	"github.com/tablefull/tablefull/sources/lab"
	"github.com/tablefull/tablefull/sources/tune"
	"github.com/tablefull/tablefull/tui"
)

// runLab builds the scenario and shows it, in the console or as headless
// lines, through the agent inside it. A closed terminal (SIGHUP) ends it
// as q, ctrl-c or SIGTERM do, and lab.Run restores the host.
func runLab(o options, scenario string, lo lab.Command, w io.Writer) error {
	lo.Scenario = scenario
	if _, ok := lab.Scenarios[lo.Scenario]; !ok {
		return usageError{fmt.Errorf("no lab scenario %q: the scenarios are %s", lo.Scenario, strings.Join(lab.Names(), ", "))}
	}
	if lo.Duration < 0 || lo.FixAfter < 0 {
		return usageError{fmt.Errorf("--duration and --fix-after want positive durations (0: none)")}
	}
	return lab.Run(lo.Scenario, lo.Options, w, func(l *lab.Lab) error {
		p, err := remote.NetnsAgent(lab.NSName)
		if err != nil {
			return err
		}
		p.Name, p.MinBackoff = "lab "+lo.Scenario, 200*time.Millisecond
		p.Start(o.interval)
		defer p.Stop()
		tee := &remote.Tee{Feed: p}
		if lo.RecordTo != "" {
			if err := tee.Start(lo.RecordTo); err != nil {
				return err
			}
			defer tee.Stop()
		}
		var fix <-chan time.Time
		if lo.FixAfter > 0 {
			fix = time.After(lo.FixAfter)
		}
		if lo.Headless {
			stopped, stop := untilStopped(lo.Duration)
			defer stop()
			return l.Headless(tee, stopped.Done(), fix, w)
		}
		tuner := &tune.Lab{Host: tune.NewSysctls(o.roots), Lab: l}
		return tui.Run(tui.NewRoot(tui.New(tee, tui.Options{Interval: o.interval, Recorder: tee, Tuner: tuner, Captions: true,
			Intro: "lab " + lo.Scenario + ": " + l.Scenario.LookFor, Live: l.Clients.String, Source: "lab " + lo.Scenario})))
	})
}
