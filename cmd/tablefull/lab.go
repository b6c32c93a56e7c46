package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

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

// runLab builds the scenario, shows it (console or headless lines) and
// restores the host on every way out.
func runLab(o options, lo labOptions, w io.Writer) (err error) {
	if _, ok := lab.Scenarios[lo.scenario]; !ok {
		return usageError{fmt.Errorf("no lab scenario %q: the scenarios are %s", lo.scenario, strings.Join(lab.Names(), ", "))}
	}
	if lo.duration < 0 || lo.fixAfter < 0 {
		return usageError{fmt.Errorf("--duration and --fix-after want positive durations (0: none)")}
	}
	l, err := lab.Start(lo.scenario, lo.Options)
	if err != nil {
		return err
	}
	defer func() {
		if r := recover(); r != nil {
			l.Close()
			panic(r)
		}
		if cerr := l.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("restore the host: %w", cerr)
		}
	}()
	// A closed terminal (SIGHUP) ends the lab as q, ctrl-c or SIGTERM do
	// (untilStopped headless, tui.Run in the console): the deferred Close
	// restores the host.
	if l.Note != "" {
		fmt.Fprintln(w, l.Note)
	}
	fmt.Fprintf(w, "lab %s: %s\nlook for: %s\n", lo.scenario, l.Scenario.What, l.Scenario.LookFor)
	self, err := os.Executable()
	if err != nil {
		return err
	}
	p := &remote.Process{Argv: []string{"ip", "netns", "exec", lab.NSName, self, "agent"}, Name: "lab " + lo.scenario,
		MinBackoff: 200 * time.Millisecond}
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
	app := tui.New(tee, tui.Options{Interval: o.interval, Recorder: tee, Tuner: tuner, Captions: true,
		Intro: "lab " + lo.scenario + ": " + l.Scenario.LookFor, Live: l.Clients.String, Source: "lab " + lo.scenario})
	return tui.Run(tui.NewRoot(app))
}
