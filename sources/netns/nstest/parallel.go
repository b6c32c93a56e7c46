package nstest

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Parallel runs t beside the suite's other parallel tests, in its turn:
// once c agrees with every claim running, held until t ends (its
// cleanups registered after, the knobs' restore among them, run first).
// A subtest runs under the claim its test holds (or the serial tests'),
// which covers it: c is its test's to make.
func Parallel(t *testing.T, c Claim) {
	t.Helper()
	t.Parallel()
	if _, ok := gate.held(t.Name()); ok && strings.Contains(t.Name(), "/") {
		// a subtest, under its test's claim (or the serial tests'): a
		// claim of its own would wait for that one, which waits for it
		return
	}
	serialOver.Do(markSerialOver)
	if os.Geteuid() != 0 {
		return // a kernel test skips: it sets nothing and tracks nothing
	}
	release, err := gate.hold(t.Name(), c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(release)
}

// serialOver is done once the suite's serial tests are over: every
// parallel test is let go at once, after the last of them.
var serialOver sync.Once

// serialPhase releases the claim Main holds over this process's serial
// tests (nil: none held).
var serialPhase func()

// withinClaimEnv names, in a test binary's environment, the process
// whose claims cover it.
const withinClaimEnv = "TABLEFULL_TESTS_WITHIN"

// serialHolder is the name the serial tests' claim is held under.
const serialHolder = "(serial tests)"

// Main runs a package's tests as m.Run does, its serial tests as one
// claim that nothing else runs beside (Claim.Alone): they time the
// machine, and the test binaries of other packages, run at once, share
// it. The claim ends with the serial tests, when the first parallel test
// starts, or with the run.
//
// A test binary a test runs (a helper of that test) inherits
// withinClaimEnv and claims nothing: its parent's claim covers it; nor
// does a fuzz target's.
func Main(m *testing.M) int {
	flag.Parse()
	if os.Geteuid() == 0 && os.Getenv(withinClaimEnv) == "" && !fuzzing() {
		release, err := gate.hold(serialHolder, Claim{Alone: true})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		serialPhase = release
		os.Setenv(withinClaimEnv, gate.process)
	}
	code := m.Run()
	serialOver.Do(markSerialOver)
	return code
}

// fuzzing says whether the binary runs a fuzz target (-test.fuzz), which
// make test runs beside the parallel tests: it claims nothing, and is not
// one of the suite's binaries.
func fuzzing() bool {
	f := flag.Lookup("test.fuzz")
	return f != nil && f.Value.String() != ""
}

// markSerialOver ends the serial tests' claim and makes the file
// TABLEFULL_PARALLEL_MARK names, when it names one: make test starts what
// may run beside the parallel tests (the fuzz targets) once it exists,
// and not beside the serial ones, which time the machine. With several
// test binaries at once (TABLEFULL_SUITE_BINARIES of them), the last
// whose serial tests end makes it.
func markSerialOver() {
	if serialPhase != nil {
		serialPhase()
	}
	mark := os.Getenv("TABLEFULL_PARALLEL_MARK")
	if mark == "" {
		return
	}
	expected, err := strconv.Atoi(os.Getenv("TABLEFULL_SUITE_BINARIES"))
	if err != nil || expected < 1 {
		expected = 1
	}
	if serialPhase == nil && os.Geteuid() == 0 {
		return // a test's helper binary, within its claim: not one of the suite's
	}
	if os.Geteuid() != 0 || gate.serialTestsOver(mark, expected) {
		os.WriteFile(mark, nil, 0o644)
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
	case c.Alone: // nothing runs beside it: any value
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
