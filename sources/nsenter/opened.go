package nsenter

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// ErrChanged reports a namespace file that no longer names the namespace
// it named when it was opened: /proc/PID/ns/net after its process exited
// and another, of another namespace, took the pid.
var ErrChanged = errors.New("not the namespace that was opened")

// Opened is a network namespace as it was when it was opened: its file
// and its identity (the nsfs inode). Every action through it checks that
// the file still names that namespace, on the very descriptor it then
// enters by, so an action never lands in another.
type Opened struct {
	Path  string
	Inode uint64
}

// Open records the namespace path names now.
func Open(path string) (Opened, error) {
	f, err := os.Open(path)
	if err != nil {
		return Opened{}, fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	ino, err := inodeOf(f)
	if err != nil {
		return Opened{}, err
	}
	return Opened{Path: path, Inode: ino}, nil
}

// Do runs fn inside the namespace, as Net does, once its file is checked
// to name the namespace that was opened; otherwise it returns ErrChanged
// and fn does not run.
func (o Opened) Do(fn func() error) error {
	return enter(o.Path, func(f *os.File) error {
		ino, err := inodeOf(f)
		if err != nil {
			return err
		}
		if ino != o.Inode {
			return fmt.Errorf("%s: %w (namespace %d, now %d): its process exited and another took the pid; open it again", o.Path, ErrChanged, o.Inode, ino)
		}
		return nil
	}, fn)
}

func inodeOf(f *os.File) (uint64, error) {
	st, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("stat %s: %w", f.Name(), err)
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, fmt.Errorf("stat %s: no inode", f.Name())
	}
	return sys.Ino, nil
}
