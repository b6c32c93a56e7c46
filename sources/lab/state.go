// Package lab reproduces real incidents in a throw-away network
// namespace: the ground our tests stand on, and a stage for talks. Every
// knob it writes, the host's global ones and its namespace's own, goes
// through sources/tune; it changes the host only after tune's undo
// record holds what it changes, and puts everything back on every exit
// path; a run after a kill -9, or tablefull tune --undo, finds the
// record and repairs the host first. tablefull lab's command line is
// cmd/tablefull/internal/labcmd's.
package lab

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/sources/kernelfs"
	"github.com/tablefull/tablefull/sources/tune"
)

// NSName is the lab's namespace.
const NSName = "tablefull-lab"

// State is what the lab made on the host, written before it is made: its
// process and its namespace. The global knobs it changes are kept apart,
// in tune's undo record in the lab's directory (Paths.undoDir), before
// each first change.
type State struct {
	PID int    `json:"pid"`
	NS  string `json:"netns"`
}

// Global names a global knob the lab may change, by its model key.
type Global string

// The global knobs: one value for the whole host, so the lab restores them.
const (
	GlobalMax      Global = knob.Max
	GlobalHashsize Global = knob.Hashsize
)

// Paths are where the lab keeps its lock and state, and the /proc and
// /sys roots.
type Paths struct {
	RunDir string // /run
	Proc   string // /proc
	Sys    string // /sys
}

// orHost is p with the host's /run, /proc and /sys where p names none.
func (p Paths) orHost() Paths {
	for _, d := range []struct {
		dir  *string
		host string
	}{{&p.RunDir, "/run"}, {&p.Proc, "/proc"}, {&p.Sys, "/sys"}} {
		if *d.dir == "" {
			*d.dir = d.host
		}
	}
	return p
}

func (p Paths) state() string { return filepath.Join(p.RunDir, "tablefull-lab.json") }
func (p Paths) lock() string  { return filepath.Join(p.RunDir, "tablefull-lab.lock") }

// undoDir keeps the undo record of the global knobs the lab changed.
func (p Paths) undoDir() string { return filepath.Join(p.RunDir, "tablefull-lab") }

// sysctls writes and reads the knobs under p's roots.
func (p Paths) sysctls() *tune.Sysctls {
	return tune.NewSysctls(kernelfs.Roots{Proc: p.Proc, Sys: p.Sys})
}

// read reads a global knob as a number, through tune's reader.
func (p Paths) read(g Global) (uint64, error) {
	v, ok := p.sysctls().ReadOf(map[string]string{string(g): ""})[string(g)]
	if !ok {
		return 0, fmt.Errorf("read %s: %w", g, kernelfs.ErrUnavailable)
	}
	return strconv.ParseUint(v, 10, 64)
}

// maxState bounds the state file read back.
const maxState = 64 << 10

// ErrRunning reports that another lab holds the lock.
var ErrRunning = errors.New("another lab is running")

// lock takes the lab's lock; it is released when the process exits, even
// by kill -9.
func lock(p Paths) (*os.File, error) {
	if err := os.MkdirAll(p.RunDir, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", p.RunDir, err)
	}
	// root opens it: a link planted in its place is not followed, and a
	// FIFO is neither waited on nor taken for the lock
	f, err := os.OpenFile(p.lock(), os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open lab lock: %w", err)
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("open lab lock %s: %w: not a regular file", p.lock(), kernelfs.ErrUntrusted)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		holder := "?"
		if b, err := kernelfs.ReadPrivate(p.state(), maxState); err == nil {
			var s State
			if json.Unmarshal(b, &s) == nil {
				holder = strconv.Itoa(s.PID)
			}
		}
		return nil, fmt.Errorf("%w (pid %s): one lab at a time, it changes the global nf_conntrack_max", ErrRunning, holder)
	}
	return f, nil
}

func saveState(p Paths, s State) error {
	b, _ := json.Marshal(s)
	if err := kernelfs.WritePrivate(p.state(), b); err != nil {
		return fmt.Errorf("write lab state: %w", err)
	}
	return nil
}

// ErrDamaged reports a state file the lab cannot use: unreadable,
// untrusted (owner, mode) or naming values it would not write. The file is
// kept for the user to check.
var ErrDamaged = errors.New("lab state is damaged")

// loadState reads and checks the state file: owner and mode, and the
// namespace it names.
func loadState(p Paths) (State, error) {
	var s State
	b, err := kernelfs.ReadPrivate(p.state(), maxState)
	if err == nil {
		err = json.Unmarshal(b, &s)
	}
	if err == nil && s.NS != "" && s.NS != NSName {
		err = fmt.Errorf("namespace %q is not the lab's", s.NS)
	}
	if err != nil {
		return s, fmt.Errorf("%w: %s: %w (it is kept: check the host, then remove it)", ErrDamaged, p.state(), err)
	}
	return s, nil
}

// restoreGlobals puts back every global knob the undo record in the
// lab's directory keeps (tune.UndoLive: checked, written, read back).
func restoreGlobals(p Paths) ([]string, error) {
	res, err := tune.UndoLive(p.undoDir(), p.sysctls())
	if errors.Is(err, tune.ErrNothingToUndo) {
		return nil, nil
	}
	if err == nil {
		os.Remove(p.undoDir()) // empty once the record is dropped
	}
	var did []string
	for _, r := range res {
		did = append(did, r.Key+"="+r.Wanted)
	}
	if err != nil {
		return did, fmt.Errorf("restore: %w", err)
	}
	return did, nil
}

// Repair undoes what a lab killed before it could clean up left behind:
// the global knobs and the namespace. It is a no-op when nothing is
// left. Call it with the lock held. A damaged state file is kept and
// named in the error.
func Repair(p Paths) (string, error) {
	did, err := restoreGlobals(p)
	if err != nil {
		return "", err
	}
	if _, err := os.Lstat(p.state()); errors.Is(err, fs.ErrNotExist) {
		return repaired(did), nil
	}
	s, err := loadState(p)
	if err != nil {
		return "", err
	}
	if s.NS != "" {
		if _, err := os.Stat(filepath.Join(p.RunDir, "netns", s.NS)); err == nil {
			if out, err := exec.Command("ip", "netns", "del", s.NS).CombinedOutput(); err != nil {
				return "", fmt.Errorf("delete namespace %s: %w: %s", s.NS, err, out)
			}
			did = append(did, "namespace "+s.NS+" deleted")
		}
	}
	if err := os.Remove(p.state()); err != nil {
		return "", fmt.Errorf("remove lab state: %w", err)
	}
	return repaired(did), nil
}

// repaired says what a repair did, "" for nothing.
func repaired(did []string) string {
	if len(did) == 0 {
		return ""
	}
	return "repaired what an earlier lab left: " + strings.Join(did, ", ")
}

// RepairIdle is Repair when no lab runs (its lock is free): what tablefull
// tune --undo does after a lab was killed. ErrRunning when one runs: it
// restores the host itself when it ends.
func RepairIdle(p Paths) (string, error) {
	p = p.orHost()
	if _, err := os.Lstat(p.lock()); errors.Is(err, fs.ErrNotExist) {
		return "", nil // no lab ever ran here
	}
	f, err := lock(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return Repair(p)
}
