package nstest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/tablefull/tablefull/sources/kernelfs/kernelfstest"
)

// knobGate admits claims in the order they came, each when it agrees with
// every claim running and with every earlier one still waiting that could
// start now: a later claim joins the running ones it agrees with ahead of
// an earlier waiter those keep out anyway, so that tests of one cap run
// together whatever order they came in, but never ahead of one that could
// start (when the last running claim ends, the earliest waiter goes
// first, so none waits longer than the suite's claims take). It keeps the
// knobs' values from before the tests that set them.
//
// Its state is the machine's (gateState, in dir), not the process's: the
// test binaries of several packages (the rooms) run at once and share the
// one cap.
type knobGate struct {
	// dir holds the state, its lock and the knobs' journal
	// (kernelfstest.KnobJournal): a killed run's knobs are written back
	// by the next.
	dir string
	// process is this process's kernelfstest.ProcessKey.
	process string
	// poll is how often a waiting claim reads the state again.
	poll time.Duration
	// allowedRoot is where knobs other than conntrack's may be, for a
	// unit test's gate ("" for the machine's).
	allowedRoot string

	mu   sync.Mutex
	mine map[string]Claim // this process's running claims, by test name
}

func newKnobGate(dir string) *knobGate {
	g := &knobGate{dir: dir, process: kernelfstest.ProcessKey(os.Getpid()),
		poll: 20 * time.Millisecond, mine: map[string]Claim{}}
	if dir != kernelfstest.KnobJournal {
		g.allowedRoot = os.TempDir() // a unit test's gate, over knobs it made
	}
	return g
}

// withState runs change on the gate's state under its lock.
func (g *knobGate) withState(change func(*gateState) error) error {
	return withState(g.dir, g.allowedRoot, change)
}

// gate is the machine's gate, as this test binary reaches it.
var gate = newKnobGate(kernelfstest.KnobJournal)

// hold waits until test name's claim c may run, holds it, and returns
// what releases it.
func (g *knobGate) hold(name string, c Claim) (release func(), err error) {
	g.mu.Lock()
	_, dup := g.mine[name]
	if !dup {
		g.mine[name] = c
	}
	g.mu.Unlock()
	if dup {
		return nil, fmt.Errorf("%s claims the machine twice", name)
	}
	holder := holderKey(g.process, name)
	var ticket uint64
	err = g.withState(func(st *gateState) error {
		ticket = st.Next
		st.Next++
		st.Waiting[ticket] = gateEntry{Holder: holder, Claim: c}
		return nil
	})
	g.logTurn("asks", name, c)
	for admitted := false; err == nil && !admitted; {
		err = g.withState(func(st *gateState) error {
			if admitted = st.admissible(ticket, c); admitted {
				delete(st.Waiting, ticket)
				st.Running[holder] = gateEntry{Holder: holder, Claim: c}
			}
			return nil
		})
		if admitted {
			g.logTurn("admitted", name, c)
		} else {
			time.Sleep(g.poll)
		}
	}
	release = func() {
		g.withState(func(st *gateState) error {
			delete(st.Waiting, ticket)
			delete(st.Running, holder)
			return nil
		})
		g.logTurn("ends", name, c)
		g.mu.Lock()
		delete(g.mine, name)
		g.mu.Unlock()
	}
	if err != nil {
		release()
		return nil, err
	}
	return release, nil
}

// held is the claim test name, or a test it runs within, holds.
func (g *knobGate) held(name string) (Claim, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for {
		if c, ok := g.mine[name]; ok {
			return c, true
		}
		i := strings.LastIndexByte(name, '/')
		if i < 0 {
			// a serial test runs under the serial tests' claim
			c, ok := g.mine[serialHolder]
			return c, ok
		}
		name = name[:i]
	}
}

// set writes value to the knob at path for test name and returns what
// puts the value from before the first of its setters, in any process,
// back once the last of them ends.
func (g *knobGate) set(name, path, value string) (restore func() error, err error) {
	holder := holderKey(g.process, name)
	err = g.withState(func(st *gateState) error {
		if len(st.Setters[path]) == 0 {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			st.Before[path] = strings.TrimSpace(string(b))
			if err := kernelfstest.JournalKnobFor(g.dir, path, st.Before[path], g.process); err != nil {
				return err
			}
			st.Setters[path] = map[string]bool{}
		}
		st.Setters[path][holder] = true
		if err := os.WriteFile(path, []byte(value), 0o644); err != nil {
			st.unset(g.dir, holder, path)
			return err
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return func() error {
		return g.withState(func(st *gateState) error { return st.unset(g.dir, holder, path) })
	}, nil
}

// serialTestsOver counts this test binary's serial tests over for mark
// and says whether every binary's are: as many binaries as expected have
// counted theirs, and none holds or waits for their claim.
func (g *knobGate) serialTestsOver(mark string, expected int) bool {
	over := false
	g.withState(func(st *gateState) error {
		st.SerialOver[mark]++
		if st.SerialOver[mark] < expected {
			return nil
		}
		for _, e := range st.Waiting {
			if strings.HasSuffix(e.Holder, "/"+serialHolder) {
				return nil
			}
		}
		for _, e := range st.Running {
			if strings.HasSuffix(e.Holder, "/"+serialHolder) {
				return nil
			}
		}
		delete(st.SerialOver, mark)
		over = true
		return nil
	})
	return over
}

// logTurn appends what a claim did (asks, admitted, ends) to the file
// TABLEFULL_GATE_LOG names, when it names one: a run's turns, to read
// where its time went.
func (g *knobGate) logTurn(what, name string, c Claim) {
	path := os.Getenv("TABLEFULL_GATE_LOG")
	if path == "" || g.dir != kernelfstest.KnobJournal { // the machine's gate, not a unit test's
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "%s %s %s %s %+v\n", time.Now().Format("15:04:05.000"), what, filepath.Base(os.Args[0]), name, c)
}
