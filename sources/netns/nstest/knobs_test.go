package nstest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestClaimsAgree(t *testing.T) {
	for _, c := range []struct {
		name string
		a, b Claim
		want bool
	}{
		{"nothing claimed of the knobs", Claim{}, Claim{Entries: 50}, true},
		{"the same cap, kept", Claim{Max: 64}, Claim{Max: 64}, true},
		{"two caps", Claim{Max: 64}, Claim{Max: 4096}, false},
		{"a cap and one that changes it", Claim{Max: 4096}, Claim{Max: 4096, Changes: true}, false},
		{"two that change it", Claim{Max: 512, Changes: true}, Claim{Max: 512, Changes: true}, false},
		{"a changer and a few entries", Claim{Max: 512, Changes: true}, Claim{Entries: 100}, true},
		{"a changer and too many entries", Claim{Max: 512, Changes: true}, Claim{Entries: 300}, false},
		{"a changer to any value and any entries", Claim{Changes: true}, Claim{Entries: 1}, false},
		{"a changer to any value and a test that tracks nothing", Claim{Changes: true}, Claim{}, true},
		{"a cap under twice the entries beside it", Claim{Entries: 40}, Claim{Max: 64}, false},
		{"alone", Claim{Alone: true}, Claim{}, false},
		{"a quiet test and a heavy one", Claim{Max: 4096, Changes: true, Quiet: true}, Claim{Heavy: true}, false},
		{"a heavy test beside a cap kept", Claim{Max: 64}, Claim{Heavy: true}, true},
		{"a quiet test beside one that tracks a few entries", Claim{Max: 4096, Changes: true, Quiet: true}, Claim{Entries: 64}, true},
	} {
		if got, back := c.a.agrees(c.b), c.b.agrees(c.a); got != c.want || back != c.want {
			t.Errorf("%s: %+v and %+v agree %v (and back %v), want %v", c.name, c.a, c.b, got, back, c.want)
		}
	}
}

// TestGateKeepsTurns: a claim waits for one it disagrees with; a later
// claim that agrees with the running ones joins them ahead of an earlier
// waiter they keep out anyway (tests of one cap run together), but not
// ahead of an earlier waiter that could start once they end.
func TestGateKeepsTurns(t *testing.T) {
	g := newKnobGate(t.TempDir())
	releaseA, err := g.hold("a", Claim{Max: 64})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var order []string
	var wg sync.WaitGroup
	start := func(name string, c Claim) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			release, err := g.hold(name, c)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			order = append(order, name)
			mu.Unlock()
			time.Sleep(20 * time.Millisecond)
			release()
		}()
	}
	admitted := func() string { mu.Lock(); defer mu.Unlock(); return strings.Join(order, " ") }
	waiting := func(n int) func() bool {
		return func() bool { st, err := readState(g.dir, g.allowedRoot); return err == nil && len(st.Waiting) == n }
	}
	start("b", Claim{Max: 4096, Changes: true})
	waitFor(t, waiting(1))
	start("c", Claim{Max: 128}) // agrees with neither a nor b, which came first
	waitFor(t, waiting(2))
	start("d", Claim{Max: 64}) // agrees with a, which keeps b and c out anyway
	waitFor(t, func() bool { return admitted() == "d" })
	time.Sleep(40 * time.Millisecond) // d has ended; a still runs
	if got := admitted(); got != "d" {
		t.Errorf("admitted %q beside a's cap, want d alone", got)
	}
	releaseA()
	wg.Wait()
	if got := admitted(); got != "d b c" {
		t.Errorf("admitted in the order %q, want d beside a, then b, then c", got)
	}
	if _, err := g.hold("c", Claim{}); err != nil {
		t.Errorf("a released name is not held: %v", err)
	}
	if _, err := g.hold("c", Claim{}); err == nil {
		t.Error("a test claimed the machine twice")
	}
}

// TestKnobRestoredByTheLastSetter: two tests that set a knob to the same
// value leave it set until both end, and then it reads what it did
// before the first; while it is set, the journal holds that value for a
// run killed before its cleanups.
func TestKnobRestoredByTheLastSetter(t *testing.T) {
	journal := t.TempDir()
	g := newKnobGate(journal)
	recorded := func() string {
		files, _ := filepath.Glob(filepath.Join(journal, "*.knob"))
		if len(files) != 1 {
			return fmt.Sprint(len(files), " records")
		}
		b, _ := os.ReadFile(files[0])
		return strings.Split(string(b), "\n")[1]
	}
	path := filepath.Join(t.TempDir(), "nf_conntrack_max")
	if err := os.WriteFile(path, []byte("262144\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	read := func() string { b, _ := os.ReadFile(path); return strings.TrimSpace(string(b)) }
	first, err := g.set("a", path, "64")
	if err != nil {
		t.Fatal(err)
	}
	second, err := g.set("b", path, "64")
	if err != nil {
		t.Fatal(err)
	}
	if got := recorded(); got != "262144" {
		t.Errorf("while set, the journal records %s, want the value from before, 262144", got)
	}
	if err := first(); err != nil || read() != "64" {
		t.Errorf("after the first of two setters ended the knob reads %s (%v), want 64", read(), err)
	}
	if err := second(); err != nil || read() != "262144" {
		t.Errorf("after the last setter ended the knob reads %s (%v), want 262144", read(), err)
	}
	if got := recorded(); got != "0 records" {
		t.Errorf("after the knob is back the journal holds %s, want none", got)
	}
	if _, err := g.set("c", filepath.Join(t.TempDir(), "absent", "knob"), "1"); err == nil {
		t.Error("a knob that cannot be read was set")
	}
}

// TestHeldByTheParent: a subtest runs under its parent's claim.
func TestHeldByTheParent(t *testing.T) {
	g := newKnobGate(t.TempDir())
	release, _ := g.hold("TestX", Claim{Max: 512})
	defer release()
	if c, ok := g.held("TestX/run/1"); !ok || c.Max != 512 {
		t.Errorf("the subtest holds %+v, %v; want its parent's", c, ok)
	}
	if _, ok := g.held("TestY/1"); ok {
		t.Error("a test holds a claim it never made")
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(5 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("timed out")
		}
	}
}

// TestSerialTestsRunUnderOneClaim: a serial test runs under the claim
// Main holds for the serial tests, and its knob writes need no other.
func TestSerialTestsRunUnderOneClaim(t *testing.T) {
	g := newKnobGate(t.TempDir())
	if _, ok := g.held("TestSerial"); ok {
		t.Fatal("a test holds a claim before any was made")
	}
	release, err := g.hold(serialHolder, Claim{Alone: true})
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := g.held("TestSerial/sub"); !ok || !c.Alone {
		t.Errorf("a serial test holds %+v, %v; want the serial tests' claim", c, ok)
	}
	release()
	if _, ok := g.held("TestSerial"); ok {
		t.Error("a test holds the serial tests' claim after it ended")
	}
}

// TestSerialTestsOverForEveryBinary: the mark that lets the fuzz targets
// start is made by the last of the suite's binaries whose serial tests
// end, and not while one holds or waits for their claim.
func TestSerialTestsOverForEveryBinary(t *testing.T) {
	g := newKnobGate(t.TempDir())
	if g.serialTestsOver("mark", 2) {
		t.Error("the first of two binaries made the mark")
	}
	release, err := g.hold("TestLater/"+serialHolder, Claim{Alone: true})
	if err != nil {
		t.Fatal(err)
	}
	if g.serialTestsOver("mark", 2) {
		t.Error("the mark was made while a binary's serial tests held their claim")
	}
	release()
	if !g.serialTestsOver("mark", 2) {
		t.Error("the last binary's serial tests ended and no mark was made")
	}
	if g.serialTestsOver("other", 2) {
		t.Error("another run's mark counted this run's binaries")
	}
}

// TestForgedGateStateRefused: a state file naming a knob this suite does
// not set, or a value that is not a number, is refused, and nothing is
// written back to it: the tests run as root and trust no file they read.
//
// Its victims are files it made, the one outside the knobs standing for a
// system file: were the check broken, this test would write them, never
// the machine's (an earlier form named /etc/passwd, and once wrote it).
func TestForgedGateStateRefused(t *testing.T) {
	knobs, outside := t.TempDir()+"/", t.TempDir()
	stranger := filepath.Join(outside, "passwd") // not under the gate's knobs
	knob := filepath.Join(knobs, "max")          // a knob, given words
	for _, p := range []string{stranger, knob} {
		if err := os.WriteFile(p, []byte("kept\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, state := range map[string]string{
		"not a knob":      fmt.Sprintf(`{"before":{%q:"1"},"setters":{%q:{"1 1/TestGone":true}}}`, stranger, stranger),
		"not a number":    fmt.Sprintf(`{"before":{%q:"x"},"setters":{%q:{"1 1/TestGone":true}}}`, knob, knob),
		"not json at all": `{`,
	} {
		t.Run(name, func(t *testing.T) {
			g := newKnobGate(t.TempDir())
			g.allowedRoot = knobs
			if err := os.WriteFile(filepath.Join(g.dir, "gate.json"), []byte(state), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := g.hold("TestX", Claim{}); err == nil {
				t.Error("a forged state was taken")
			}
			for _, p := range []string{stranger, knob} {
				if b, _ := os.ReadFile(p); string(b) != "kept\n" {
					t.Errorf("the forged state's value was written back to %s: %q", p, b)
				}
			}
		})
	}
}

// TestServerClaimsTakeSlots: claims that agree run side by side, but no
// more than ServerSlots of those that start servers: a third waits for
// one of them to end while a claim without servers joins at once.
func TestServerClaimsTakeSlots(t *testing.T) {
	g := newKnobGate(t.TempDir())
	var releases []func()
	for i := range ServerSlots {
		release, err := g.hold(fmt.Sprint("server", i), Claim{Max: 64, Servers: true})
		if err != nil {
			t.Fatal(err)
		}
		releases = append(releases, release)
	}
	admitted, released := make(chan string, 2), make(chan struct{})
	go func() {
		defer close(released) // its state written before the test's dir goes
		release, err := g.hold("one server too many", Claim{Max: 64, Servers: true})
		if err != nil {
			t.Error(err)
			return
		}
		admitted <- "one server too many"
		release()
	}()
	waitFor(t, func() bool { st, err := readState(g.dir, g.allowedRoot); return err == nil && len(st.Waiting) == 1 })
	release, err := g.hold("no servers", Claim{Max: 64})
	if err != nil {
		t.Fatal(err)
	}
	release()
	select {
	case name := <-admitted:
		t.Fatalf("%s was admitted while %d servers' claims ran", name, ServerSlots)
	case <-time.After(100 * time.Millisecond):
	}
	releases[0]()
	select {
	case <-admitted:
	case <-time.After(5 * time.Second):
		t.Fatal("a slot came free and the waiting server's claim was not admitted")
	}
	<-released
	releases[1]()
}
