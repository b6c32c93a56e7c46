// Package lab reproduces real incidents in a throw-away network
// namespace: the ground our tests stand on, and a stage for talks. It
// changes the host (the global nf_conntrack_max) only after recording
// what it changes, and puts everything back on every exit path; a run
// after a kill -9 finds the record and repairs the host first.
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

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/sources/kernelfs"
)

// NSName is the lab's namespace.
const NSName = "tablefull-lab"

// State is what the lab changed on the host, written before the change.
type State struct {
	PID int    `json:"pid"`
	NS  string `json:"netns"`
	// Globals holds the value each global knob had before the lab first
	// changed it (the scenario's lowered max, a max or hashsize set from
	// the lab's tuning panel, --fix-after).
	Globals map[Global]string `json:"globals,omitempty"`
}

// Global names a global knob the lab may change, by its model key.
type Global string

// The global knobs: one value for the whole host, so the lab restores them.
const (
	GlobalMax      Global = model.KnobMax
	GlobalHashsize Global = model.KnobHashsize
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
func (p Paths) max() string   { return p.global(GlobalMax) }

// global is where a global knob lives; "" for an unknown one.
func (p Paths) global(g Global) string {
	switch g {
	case GlobalMax:
		return filepath.Join(p.Proc, "sys", "net", "netfilter", "nf_conntrack_max")
	case GlobalHashsize:
		return filepath.Join(p.Sys, "module", "nf_conntrack", "parameters", "hashsize")
	}
	return ""
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
	f, err := os.OpenFile(p.lock(), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open lab lock: %w", err)
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

// loadState reads and checks the state file: owner and mode, known knobs,
// values that are plain numbers (re-rendered before they are written).
func loadState(p Paths) (State, error) {
	var s State
	b, err := kernelfs.ReadPrivate(p.state(), maxState)
	if err == nil {
		err = json.Unmarshal(b, &s)
	}
	for g, v := range s.Globals {
		n, perr := strconv.ParseUint(v, 10, 64)
		if err == nil && (p.global(g) == "" || perr != nil || n == 0) {
			err = fmt.Errorf("knob %q = %q", g, v)
		}
		s.Globals[g] = strconv.FormatUint(n, 10)
	}
	if err == nil && s.NS != "" && s.NS != NSName {
		err = fmt.Errorf("namespace %q is not the lab's", s.NS)
	}
	if err != nil {
		return s, fmt.Errorf("%w: %s: %w (it is kept: check the host, then remove it)", ErrDamaged, p.state(), err)
	}
	return s, nil
}

// restoreGlobals writes back every global knob recorded in s.
func restoreGlobals(p Paths, s State) ([]string, error) {
	var did []string
	var errs []error
	for _, g := range []Global{GlobalHashsize, GlobalMax} {
		v, ok := s.Globals[g]
		if !ok {
			continue
		}
		if err := setGlobal(p, g, v); err != nil {
			errs = append(errs, fmt.Errorf("restore: %w", err))
			continue
		}
		did = append(did, string(g)+"="+v)
	}
	return did, errors.Join(errs...)
}

// Repair undoes what a lab killed before it could clean up left behind:
// the global knobs and the namespace. It is a no-op when nothing is
// left. Call it with the lock held. A damaged state file is kept and
// named in the error.
func Repair(p Paths) (string, error) {
	if _, err := os.Lstat(p.state()); errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	s, err := loadState(p)
	if err != nil {
		return "", err
	}
	did, err := restoreGlobals(p, s)
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
	if len(did) == 0 {
		return "", nil
	}
	return "repaired what an earlier lab left: " + strings.Join(did, ", "), nil
}
