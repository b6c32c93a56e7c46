package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	flag "github.com/spf13/pflag"

	"github.com/tablefull/tablefull/remote"
	"github.com/tablefull/tablefull/sources/lab"
	"github.com/tablefull/tablefull/sources/tune"
	"github.com/tablefull/tablefull/tui"
)

// labOptions are lab's flags.
type labOptions struct {
	scenario string
	lab.Options
	duration, fixAfter time.Duration
	headless           bool
	recordTo           string
}

func labFlags(fs *flag.FlagSet, v *flagValues) {
	lo := &v.lo
	fs.DurationVar(&lo.duration, "duration", 0, "end the lab after `D` (default: when you quit)")
	fs.IntVar(&lo.Workers, "workers", 0, "client workers (default: the scenario's)")
	fs.Float64Var(&lo.Rate, "rate", 0, "requests per second over all workers (default: the scenario's)")
	fs.BoolVar(&lo.headless, "headless", false, "print one line per sample instead of the console")
	fs.StringVar(&lo.recordTo, "record", "", "record the lab's stream to `FILE` (e.g. to re-record the demo)")
	fs.DurationVar(&lo.fixAfter, "fix-after", 0, "raise nf_conntrack_max to 16384 after `D` (for recordings)")
}

// runLab builds the scenario and shows it, in the console or as headless
// lines, through the agent inside it. A closed terminal (SIGHUP) ends it
// as q, ctrl-c or SIGTERM do, and lab.Run restores the host.
func runLab(o options, lo labOptions, w io.Writer) error {
	if _, ok := lab.Scenarios[lo.scenario]; !ok {
		return usageError{fmt.Errorf("no lab scenario %q: the scenarios are %s", lo.scenario, strings.Join(lab.Names(), ", "))}
	}
	if lo.duration < 0 || lo.fixAfter < 0 {
		return usageError{fmt.Errorf("--duration and --fix-after want positive durations (0: none)")}
	}
	return lab.Run(lo.scenario, lo.Options, w, func(l *lab.Lab) error {
		p, err := remote.NetnsAgent(lab.NSName)
		if err != nil {
			return err
		}
		p.Name, p.MinBackoff = "lab "+lo.scenario, 200*time.Millisecond
		p.Start(o.interval)
		defer p.Stop()
		tee := &remote.Tee{Feed: p}
		if lo.recordTo != "" {
			if err := tee.Start(lo.recordTo); err != nil {
				return err
			}
			defer tee.Stop()
		}
		var fix <-chan time.Time
		if lo.fixAfter > 0 {
			fix = time.After(lo.fixAfter)
		}
		if lo.headless {
			stopped, stop := untilStopped(lo.duration)
			defer stop()
			return l.Headless(tee, stopped.Done(), fix, w)
		}
		tuner := &tune.Lab{Host: tune.NewSysctls(o.roots), Lab: l}
		return tui.Run(tui.NewRoot(tui.New(tee, tui.Options{Interval: o.interval, Recorder: tee, Tuner: tuner, Captions: true,
			Intro: "lab " + lo.scenario + ": " + l.Scenario.LookFor, Live: l.Clients.String, Source: "lab " + lo.scenario})))
	})
}
