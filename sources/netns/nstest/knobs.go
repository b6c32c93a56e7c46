package nstest

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/tablefull/tablefull/sources/kernelfs/kernelfstest"
)

// A Claim is what a test asks of the machine that every namespace shares:
// the conntrack cap (nf_conntrack_max) and the hashsize, one for the
// whole machine (KERNEL.md: the count is a namespace's, the cap the
// host's), and the machine's time. Tests whose claims agree run side by
// side, each in namespaces of its own; the others wait their turn.
type Claim struct {
	// Max is the cap the test sets and keeps, with as many buckets (0: it
	// keeps the host's).
	Max uint64
	// Changes says the test, or the tune or lab it runs, changes the knobs
	// while it runs, never below Max (0: to any value): no other test that
	// sets them, or tracks more than half of Max, runs beside it.
	Changes bool
	// Entries is the most entries the test's namespaces hold at once: a
	// test beside it may set the cap only to twice that or more.
	Entries int
	// Alone says the test reads what every namespace shares (the hash's
	// chains, the collector's passes), times the machine or loads every
	// CPU of it: no other claim runs beside it.
	Alone bool
}

// setsKnobs says whether c writes the global knobs.
func (c Claim) setsKnobs() bool { return c.Max > 0 || c.Changes }

// agrees says whether tests claiming c and o may run at once.
func (c Claim) agrees(o Claim) bool {
	switch {
	case c.Alone || o.Alone:
		return false
	case c.setsKnobs() && o.setsKnobs():
		return c.Max == o.Max && !c.Changes && !o.Changes
	case c.setsKnobs():
		return c.Max >= 2*uint64(o.Entries)
	case o.setsKnobs():
		return o.Max >= 2*uint64(c.Entries)
	}
	return true
}

// knobGate admits claims in the order they came, each when it agrees with
// every claim running and with every earlier one still waiting that could
// start now: a later claim joins the running ones it agrees with ahead of
// an earlier waiter those keep out anyway, so that tests of one cap run
// together whatever order they came in, but never ahead of one that could
// start (when the last running claim ends, the earliest waiter goes
// first, so none waits longer than the suite's claims take). It keeps the
// knobs' values from before the tests that set them.
type knobGate struct {
	mu      sync.Mutex
	changed *sync.Cond
	next    uint64
	waiting map[uint64]Claim
	running map[string]Claim // by test name
	// before is each knob's value before the tests now setting it; setters
	// the tests that set it, by name: the last of them to end writes
	// before back.
	before  map[string]string
	setters map[string]map[string]bool
	// journal is the directory that keeps before on disk while a knob is
	// set (kernelfstest.KnobJournal): a killed run's is written back by
	// the next.
	journal string
}

func newKnobGate(journal string) *knobGate {
	g := &knobGate{waiting: map[uint64]Claim{}, running: map[string]Claim{},
		before: map[string]string{}, setters: map[string]map[string]bool{}, journal: journal}
	g.changed = sync.NewCond(&g.mu)
	return g
}

// gate is the test binary's one gate: tests of one package share it.
var gate = newKnobGate(kernelfstest.KnobJournal)

// admissible says whether ticket n's claim c may start now.
func (g *knobGate) admissible(n uint64, c Claim) bool {
	if g.keptOut(c) {
		return false
	}
	for m, w := range g.waiting {
		if m < n && !c.agrees(w) && !g.keptOut(w) {
			return false
		}
	}
	return true
}

// keptOut says whether a running claim disagrees with c.
func (g *knobGate) keptOut(c Claim) bool {
	for _, r := range g.running {
		if !c.agrees(r) {
			return true
		}
	}
	return false
}

// hold waits until test name's claim c may run, holds it, and returns
// what releases it.
func (g *knobGate) hold(name string, c Claim) (release func(), err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, dup := g.running[name]; dup {
		return nil, fmt.Errorf("%s claims the machine twice", name)
	}
	n := g.next
	g.next++
	g.waiting[n] = c
	for !g.admissible(n, c) {
		g.changed.Wait()
	}
	delete(g.waiting, n)
	g.running[name] = c
	return func() {
		g.mu.Lock()
		delete(g.running, name)
		g.changed.Broadcast()
		g.mu.Unlock()
	}, nil
}

// held is the claim test name, or a test it runs within, holds.
func (g *knobGate) held(name string) (Claim, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for {
		if c, ok := g.running[name]; ok {
			return c, true
		}
		i := strings.LastIndexByte(name, '/')
		if i < 0 {
			return Claim{}, false
		}
		name = name[:i]
	}
}

// set writes value to the knob at path for test name and returns what
// puts the value from before the first of its setters back once the last
// of them ends.
func (g *knobGate) set(name, path, value string) (restore func() error, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.setters[path]) == 0 {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		g.before[path] = strings.TrimSpace(string(b))
		if err := kernelfstest.JournalKnob(g.journal, path, g.before[path]); err != nil {
			return nil, err
		}
		g.setters[path] = map[string]bool{}
	}
	g.setters[path][name] = true
	restore = func() error {
		g.mu.Lock()
		defer g.mu.Unlock()
		delete(g.setters[path], name)
		if len(g.setters[path]) > 0 {
			return nil
		}
		if err := os.WriteFile(path, []byte(g.before[path]), 0o644); err != nil {
			return err
		}
		return kernelfstest.ForgetKnob(g.journal, path)
	}
	if err := os.WriteFile(path, []byte(value), 0o644); err != nil {
		restore()
		return nil, err
	}
	return restore, nil
}

// Parallel runs t beside the suite's other parallel tests, in its turn:
// once c agrees with every claim running, held until t ends (its
// cleanups registered after, the knobs' restore among them, run first).
func Parallel(t *testing.T, c Claim) {
	t.Helper()
	t.Parallel()
	serialOver.Do(markSerialOver)
	release, err := gate.hold(t.Name(), c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(release)
}

// serialOver is done once the suite's serial tests are over: every
// parallel test is let go at once, after the last of them.
var serialOver sync.Once

// markSerialOver makes the file TABLEFULL_PARALLEL_MARK names, when it
// names one: make test starts what may run beside the parallel tests
// (the fuzz targets) once it exists, and not beside the serial ones,
// which time the machine.
func markSerialOver() {
	if path := os.Getenv("TABLEFULL_PARALLEL_MARK"); path != "" {
		os.WriteFile(path, nil, 0o644)
	}
}

// SetKnob writes value to the global knob at path for t, as its claim
// allows (a test that claimed nothing claims the knobs whole first: it
// runs alone among the tests that set them or track entries, as every
// test did before claims); the value from before is written back when
// the last test setting it ends. A cap is checked against the claim.
func SetKnob(t testing.TB, path, value string, capValue uint64) error {
	t.Helper()
	c, ok := gate.held(t.Name())
	switch {
	case !ok:
		release, err := gate.hold(t.Name(), Claim{Changes: true})
		if err != nil {
			return err
		}
		t.Cleanup(release)
	case !c.Changes && c.Max != capValue:
		return fmt.Errorf("%s sets the cap to %d, but claimed %d", t.Name(), capValue, c.Max)
	case c.Changes && capValue < c.Max:
		return fmt.Errorf("%s sets the cap to %d, under the %d it claimed", t.Name(), capValue, c.Max)
	}
	restore, err := gate.set(t.Name(), path, value)
	if err != nil {
		return err
	}
	t.Cleanup(func() {
		if err := restore(); err != nil {
			t.Errorf("restore %s: %v", path, err)
		}
	})
	return nil
}
