package labcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/tablefull/tablefull/remote/agent"
	"github.com/tablefull/tablefull/remote/recording"
	"github.com/tablefull/tablefull/sources"
	"github.com/tablefull/tablefull/sources/kernelfs"
	"github.com/tablefull/tablefull/sources/lab"
	"github.com/tablefull/tablefull/sources/nsenter"
	"github.com/tablefull/tablefull/sources/tune"
	"github.com/tablefull/tablefull/tui"
)

// Env is what the command line gives a lab: the sampling interval, the
// host's roots, the state directory, and Until, which ends a context on
// an interrupt, a hangup, SIGTERM or after a duration (0: never).
type Env struct {
	Interval time.Duration
	Roots    kernelfs.Roots
	StateDir string
	Until    func(time.Duration) (context.Context, context.CancelFunc)
}

// Run builds c's scenario and shows it, in the console or as headless
// lines, through the agent inside it. A closed terminal (SIGHUP) ends it
// as q, ctrl-c or SIGTERM do, and the host is restored. --duration and
// --fix-after hold in the console as they do headless.
func (c Command) Run(env Env, w io.Writer) error {
	return build(c.Scenario, c.Options, w, func(l *lab.Lab) error {
		p, err := agent.NetnsAgent(lab.NSName)
		if err != nil {
			return err
		}
		p.Name = "lab " + c.Scenario
		p.SetCensus(l.Scenario.Census)
		p.Start(env.Interval)
		defer p.Stop()
		tee := &recording.Tee{Feed: p}
		if c.RecordTo != "" {
			if err := tee.Start(c.RecordTo); err != nil {
				return err
			}
			defer tee.Stop()
		}
		if c.Headless {
			stopped, stop := env.Until(c.Duration)
			defer stop()
			return Headless(l, tee, stopped.Done(), c.FixAfter, w)
		}
		a := tui.Options{Interval: env.Interval, Recorder: tee, Tuner: l.Tuning(tune.NewSysctls(env.Roots)), Captions: true,
			Intro: "lab " + c.Scenario + ": " + l.Scenario.LookFor, Live: l.Clients.String, Source: "lab " + c.Scenario}
		opened, err := nsenter.Open(l.NS.Path())
		if err != nil {
			return err
		}
		a.Entries, a.DeleteEntries, a.FollowEntries = sources.NetnsEntries(opened, env.StateDir) // E: the lab's table, from the host
		fixed := l.FixAfter(c.FixAfter, nil)
		return errors.Join(tui.RunFor(tui.NewRoot(tui.New(tee, a)), c.Duration), fixed())
	})
}

// build builds scenario name, says on w what it built and what to look
// for, and shows it with show (the console, or headless lines) until
// show returns; the host is restored on every way out, a panic's too.
func build(name string, o lab.Options, w io.Writer, show func(*lab.Lab) error) (err error) {
	l, err := lab.Start(name, o)
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
	if l.Note != "" {
		fmt.Fprintln(w, l.Note)
	}
	fmt.Fprintf(w, "lab %s: %s\nlook for: %s\n", name, l.Scenario.What, l.Scenario.LookFor)
	if p := l.Proportions(); p != "" {
		fmt.Fprintf(w, "proportions: %s\n", p)
	}
	return show(l)
}
