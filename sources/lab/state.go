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
)

// NSName is the lab's namespace.
const NSName = "tablefull-lab"

// State is what the lab changed on the host, written before the change.
type State struct {
	PID     int    `json:"pid"`
	NS      string `json:"netns"`
	OrigMax string `json:"orig_nf_conntrack_max,omitempty"`
}

// Paths are where the lab keeps its lock and state, and the /proc root.
type Paths struct {
	RunDir string // /run
	Proc   string // /proc
}

func (p Paths) state() string { return filepath.Join(p.RunDir, "tablefull-lab.json") }
func (p Paths) lock() string  { return filepath.Join(p.RunDir, "tablefull-lab.lock") }
func (p Paths) max() string {
	return filepath.Join(p.Proc, "sys", "net", "netfilter", "nf_conntrack_max")
}

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
		if b, err := os.ReadFile(p.state()); err == nil {
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
	tmp := p.state() + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return fmt.Errorf("write lab state: %w", err)
	}
	return os.Rename(tmp, p.state())
}

// Repair undoes what a lab killed before it could clean up left behind:
// the global max and the namespace. It is a no-op when nothing is left.
// Call it with the lock held.
func Repair(p Paths) (string, error) {
	b, err := os.ReadFile(p.state())
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read lab state: %w", err)
	}
	var s State
	if err := json.Unmarshal(b, &s); err != nil {
		return "", fmt.Errorf("lab state %s is damaged: %w (remove it once the host is checked)", p.state(), err)
	}
	var did []string
	if s.OrigMax != "" {
		if err := os.WriteFile(p.max(), []byte(s.OrigMax), 0o644); err != nil {
			return "", fmt.Errorf("restore nf_conntrack_max=%s: %w", s.OrigMax, err)
		}
		did = append(did, "nf_conntrack_max="+s.OrigMax)
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
