package tune

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/tuning"
	"github.com/tablefull/tablefull/sources/kernelfs"
	"github.com/tablefull/tablefull/sources/nsenter"
)

// Namespaced tunes another network namespace of this host from the
// host: the global knobs (nf_conntrack_max, hashsize: read-only inside
// a child namespace) in the host's namespace, the others inside the
// namespace. Every write is recorded for undo in the namespace's own
// state dir, so that undoing the host and undoing a namespace never
// restore each other's values.
type Namespaced struct {
	Host *Sysctls
	// Path is the namespace's file (/run/netns/NAME, /proc/PID/ns/net).
	Path string
	// StateDir keeps this namespace's undo record.
	StateDir string
	// Opened, when set, is the namespace as ForNetns opened it: every
	// read and write checks the file still names it (a pid's file can
	// come to name another namespace).
	Opened nsenter.Opened
}

// enter runs fn inside the namespace: the one opened where it was, else
// whatever Path names (a bind mount, which names one namespace for life).
func (n *Namespaced) enter(fn func() error) error {
	if n.Opened.Path != "" {
		return n.Opened.Do(fn)
	}
	return nsenter.Net(n.Path, fn)
}

// ForNetns tunes the namespace whose file is path from the host under
// roots, its undo record in its own directory under stateDir.
func ForNetns(roots kernelfs.Roots, stateDir, path string) (*Namespaced, error) {
	dir, err := netnsStateDir(stateDir, path)
	if err != nil {
		return nil, err
	}
	opened, err := nsenter.Open(path)
	if err != nil {
		return nil, err
	}
	return &Namespaced{Host: NewSysctls(roots), Path: path, StateDir: dir, Opened: opened}, nil
}

// ErrNoPersistInNetns is the answer to persisting a namespace's tuning.
var ErrNoPersistInNetns = errors.New("a namespace's knobs are not restored by /etc/sysctl.d at boot: set them where the namespace is made (the container runtime's or the pod's sysctls); the global ones persist with tablefull tune on the host")

// splitGlobal parts changes into the global knobs and the namespace's own.
func splitGlobal(changes []tuning.Change) (global, local []tuning.Change) {
	for _, c := range changes {
		if spec, _ := tuning.Spec(c.Key); spec.Global {
			global = append(global, c)
		} else {
			local = append(local, c)
		}
	}
	return global, local
}

// Read returns the host's global knobs and the namespace's own; the
// global ones are written from the host (tuning.Tuner).
func (n *Namespaced) Read() (tuning.KnobState, error) {
	cur, err := n.read()
	k := tuning.KnobState{Current: cur, EntryBytes: n.Host.EntryBytes(), Global: true,
		Note: "nf_conntrack_max and hashsize are written from the host, the namespace's own knobs inside it"}
	if rec, rerr := LoadUndo(n.StateDir); rerr == nil {
		k.LastStep = rec.Step
	}
	return k, err
}

// read is the host's global knobs and the namespace's own.
func (n *Namespaced) read() (map[string]string, error) {
	cur := n.Host.Read()
	var inside map[string]string
	if err := n.enter(func() error { inside = n.Host.Read(); return nil }); err != nil {
		return cur, fmt.Errorf("read the namespace's knobs: %w", err)
	}
	for _, k := range tuning.Knobs {
		if v, ok := inside[k.Key]; ok && !k.Global {
			cur[k.Key] = v
		}
	}
	return cur, nil
}

// write applies changes, global ones from the host and the others in
// the namespace, each half checked before it writes.
func (n *Namespaced) write(changes []tuning.Change, count uint64) ([]knob.Result, error) {
	global, local := splitGlobal(changes)
	if err := n.Host.Check(global, count); err != nil {
		return nil, err
	}
	res, err := n.Host.Apply(global, count)
	if err != nil || len(local) == 0 {
		return res, err
	}
	var inside []knob.Result
	err = n.enter(func() error {
		var err error
		inside, err = n.Host.Apply(local, count)
		return err
	})
	if err != nil && len(res) > 0 {
		err = fmt.Errorf("%w: the global knobs written, then in the namespace: %w", ErrPartial, err)
	}
	return append(res, inside...), err
}

// Apply writes changes, the values before them recorded for Undo
// before anything is written; nothing is written without a record
// (tuning.Tuner).
func (n *Namespaced) Apply(changes []tuning.Change, count uint64) ([]knob.Result, error) {
	rec, err := (&Local{StateDir: n.StateDir}).undoRecord()
	if err != nil {
		return nil, err
	}
	before, err := n.read()
	if err != nil {
		return nil, err
	}
	return applyRecorded(n.StateDir, rec, before, changes, count, func() ([]knob.Result, error) { return n.write(changes, count) })
}

// Persist refuses: a namespace's knobs are set where it is made
// (tuning.Tuner).
func (n *Namespaced) Persist([]tuning.Change) ([]string, []string, error) {
	return nil, nil, ErrNoPersistInNetns
}

// Undo restores the values before the first apply since the last undo.
func (n *Namespaced) Undo() ([]knob.Result, error) {
	rec, err := LoadUndo(n.StateDir)
	if err != nil {
		return nil, err
	}
	res, err := n.write(changesTo(rec.Live), 0)
	if err != nil {
		return res, err
	}
	return res, DropUndo(n.StateDir)
}

// netnsStateDir is the state dir of a namespace's undo record: named by
// the namespace's inode, the one name both its /run/netns file and its
// processes' /proc/PID/ns/net share.
func netnsStateDir(stateDir, path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("network namespace: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return "", fmt.Errorf("network namespace %s: no inode", path)
	}
	return filepath.Join(stateDir, fmt.Sprintf("netns-%d", st.Ino)), nil
}
