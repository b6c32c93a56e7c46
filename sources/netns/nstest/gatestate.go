package nstest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/tablefull/tablefull/sources/kernelfs/kernelfstest"
)

// gateState is what the gate keeps for every test process of the machine
// at once (the rooms' test binaries run side by side, and the cap is one
// for all of them), in one file read and written under a lock.
type gateState struct {
	// Next is the ticket the next claim takes: claims are admitted in
	// the order they came, whatever process made them.
	Next uint64 `json:"next"`
	// Waiting are the claims not yet admitted, by ticket.
	Waiting map[uint64]gateEntry `json:"waiting"`
	// Running are the claims admitted, by holder (holderKey).
	Running map[string]gateEntry `json:"running"`
	// Before is each knob's value from before the tests now setting it;
	// Setters are those tests, by knob path: the last to end writes
	// Before back.
	Before  map[string]string          `json:"before"`
	Setters map[string]map[string]bool `json:"setters"`
	// SerialOver counts, by the mark they make
	// (TABLEFULL_PARALLEL_MARK), the test binaries whose serial tests
	// are over.
	SerialOver map[string]int `json:"serial_over,omitempty"`
}

// A gateEntry is one test's claim and the process that made it.
type gateEntry struct {
	Holder string `json:"holder"`
	Claim  Claim  `json:"claim"`
}

// holderKey names test name of the process key process (a
// kernelfstest.ProcessKey: a pid and its start time, no slash).
func holderKey(process, name string) string { return process + "/" + name }

// processOf is the process key of a holder.
func processOf(holder string) string {
	process, _, _ := strings.Cut(holder, "/")
	return process
}

// withState runs change on the gate's state in dir under the gate's lock
// and writes what it leaves; the claims and setters of processes gone
// since (killed before their cleanups) are dropped first, and a knob only
// they set is written back.
func withState(dir, allowedRoot string, change func(*gateState) error) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("test gate: %w", err)
	}
	lock, err := os.OpenFile(filepath.Join(dir, "gate.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("test gate: %w", err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("test gate: %w", err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	st, err := readState(dir, allowedRoot)
	if err != nil {
		return err
	}
	pruneErr := st.prune(dir)
	changeErr := change(st)
	b, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("test gate: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "gate.json"), b, 0o600); err != nil {
		return fmt.Errorf("test gate: %w", err)
	}
	return errors.Join(pruneErr, changeErr)
}

// readState reads the gate's state in dir: empty when there is none yet.
// A state whose knobs are not conntrack's (or under allowedRoot), or
// whose values from before are not numbers, is refused: the tests write
// those values back to those paths as root.
func readState(dir, allowedRoot string) (*gateState, error) {
	st := &gateState{}
	b, err := os.ReadFile(filepath.Join(dir, "gate.json"))
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("test gate: %w", err)
	default:
		if err := json.Unmarshal(b, st); err != nil {
			return nil, fmt.Errorf("test gate %s: %w", dir, err)
		}
	}
	if st.Waiting == nil {
		st.Waiting = map[uint64]gateEntry{}
	}
	if st.Running == nil {
		st.Running = map[string]gateEntry{}
	}
	if st.Before == nil {
		st.Before = map[string]string{}
	}
	if st.Setters == nil {
		st.Setters = map[string]map[string]bool{}
	}
	if st.SerialOver == nil {
		st.SerialOver = map[string]int{}
	}
	for path := range st.Setters {
		if !kernelfstest.KnobRecord(path, st.Before[path], allowedRoot) {
			return nil, fmt.Errorf("test gate %s: %q is not a knob record this suite writes", dir, path)
		}
	}
	return st, nil
}

// prune drops what processes gone since hold and writes back a knob none
// of the living sets.
func (st *gateState) prune(journal string) error {
	for n, w := range st.Waiting {
		if !kernelfstest.Alive(processOf(w.Holder)) {
			delete(st.Waiting, n)
		}
	}
	for k, r := range st.Running {
		if !kernelfstest.Alive(processOf(r.Holder)) {
			delete(st.Running, k)
		}
	}
	var errs []error
	for path, setters := range st.Setters {
		for h := range setters {
			if !kernelfstest.Alive(processOf(h)) {
				errs = append(errs, st.unset(journal, h, path))
			}
		}
	}
	return errors.Join(errs...)
}

// unset ends holder's setting of the knob at path: the last setter writes
// the value from before back; otherwise the journal names a setter that
// still runs, should holder's process be the one it named.
func (st *gateState) unset(journal, holder, path string) error {
	setters, ok := st.Setters[path]
	if !ok {
		return nil
	}
	delete(setters, holder)
	for other := range setters {
		if kernelfstest.Alive(processOf(other)) {
			return kernelfstest.JournalKnobFor(journal, path, st.Before[path], processOf(other))
		}
	}
	if len(setters) > 0 {
		return nil // only the dead remain: the prune under way ends them
	}
	return st.restore(journal, path)
}

// restore writes the knob at path back to its value from before and
// forgets it.
func (st *gateState) restore(journal, path string) error {
	before := st.Before[path]
	delete(st.Setters, path)
	delete(st.Before, path)
	if err := os.WriteFile(path, []byte(before), 0o644); err != nil {
		return fmt.Errorf("restore %s to %s: %w", path, before, err)
	}
	return kernelfstest.ForgetKnob(journal, path)
}

// admissible says whether ticket n's claim c may start now: it agrees
// with every claim running, and no earlier waiter that could start now
// disagrees with it.
//
// A Servers claim also waits while the running ones and the earlier
// waiters that could start now fill the ServerSlots.
func (st *gateState) admissible(n uint64, c Claim) bool {
	if st.keptOut(c) {
		return false
	}
	servers := st.serversRunning()
	for m, w := range st.Waiting {
		if m >= n || st.keptOut(w.Claim) {
			continue
		}
		if !c.agrees(w.Claim) {
			return false
		}
		if w.Claim.Servers {
			servers++
		}
	}
	return !c.Servers || servers < ServerSlots
}

// keptOut says whether a running claim disagrees with c, or the running
// Servers claims fill the slots c would take.
func (st *gateState) keptOut(c Claim) bool {
	if c.Servers && st.serversRunning() >= ServerSlots {
		return true
	}
	for _, r := range st.Running {
		if !c.agrees(r.Claim) {
			return true
		}
	}
	return false
}

// serversRunning counts the running Servers claims.
func (st *gateState) serversRunning() int {
	n := 0
	for _, r := range st.Running {
		if r.Claim.Servers {
			n++
		}
	}
	return n
}
