package kernelfs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/google/renameio/v2"
)

// ErrUntrusted reports a state file or directory that someone other than
// the user tablefull runs as could have written (owner, mode, a symlink):
// tablefull does not act on it.
var ErrUntrusted = errors.New("untrusted state")

// CheckPrivate refuses a state file (undo record, lab state) that another
// user could have planted or changed: it must be a regular file owned by
// this process's user with no group or other permission bits, in a
// directory owned by this user that no one else can write.
func CheckPrivate(path string) error {
	if err := checkOwned(filepath.Dir(path), true); err != nil {
		return err
	}
	return checkOwned(path, false)
}

func checkOwned(path string, dir bool) error {
	st, err := os.Lstat(path)
	if err != nil {
		return err
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	switch {
	case !ok:
		return fmt.Errorf("%w: %s: no owner", ErrUntrusted, path)
	case sys.Uid != uint32(os.Geteuid()):
		return fmt.Errorf("%w: %s is owned by uid %d, not %d", ErrUntrusted, path, sys.Uid, os.Geteuid())
	case dir && !st.IsDir():
		return fmt.Errorf("%w: %s is not a directory", ErrUntrusted, path)
	case dir && st.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("%w: %s is writable by others (mode %04o)", ErrUntrusted, path, st.Mode().Perm())
	case !dir && !st.Mode().IsRegular():
		return fmt.Errorf("%w: %s is not a regular file (%s)", ErrUntrusted, path, st.Mode().Type())
	case !dir && st.Mode().Perm()&0o077 != 0:
		return fmt.Errorf("%w: %s has mode %04o, want 0600", ErrUntrusted, path, st.Mode().Perm())
	}
	return nil
}

// MakePrivateDir creates dir with mode 0700 when missing and checks it as
// CheckPrivate does.
func MakePrivateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	return checkOwned(dir, true)
}

// AppendPrivate appends data to path in one write, creating it 0600: it
// never follows a symlink, never blocks on a FIFO, and refuses a file
// another user could have planted or changed (as CheckPrivate does); its
// directory is made private first.
func AppendPrivate(path string, data []byte) error {
	if err := MakePrivateDir(filepath.Dir(path)); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0o600)
	if errors.Is(err, syscall.ELOOP) {
		return fmt.Errorf("%w: %s is a symlink", ErrUntrusted, path)
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if err := checkOwned(path, false); err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		return err
	}
	return f.Close()
}

// ReadBounded reads a whole file of at most limit bytes; a larger one is
// an error, never cut short. Only a regular file is read: one planted in
// its place (a FIFO, a device) is refused, not waited on.
func ReadBounded(path string, limit int64) ([]byte, error) {
	f, err := openRegularRead(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("read %s: larger than %d bytes", path, limit)
	}
	return b, nil
}

// ReadHead reads at most the first limit bytes of path: the head of a
// listing longer than anyone shows (a busy node's /proc/net/ip_vs_conn),
// where ReadBounded refuses the whole. A line cut at the limit is the
// caller's to drop: the head ends without its newline.
func ReadHead(path string, limit int64) ([]byte, error) {
	f, err := openRegularRead(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return b, nil
}

// openRegularRead opens path to read without blocking on what it opens
// (O_NONBLOCK: a FIFO opens at once and is then refused; O_NOCTTY: no
// terminal becomes ours) and refuses anything but a regular file. Links
// are followed: the files read this way are the kernel's and the
// system's own, some of them links by design (/etc/sysctl.d/99-sysctl.conf).
func openRegularRead(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("read %s: %w: not a regular file", path, ErrUntrusted)
	}
	return f, nil
}

// RewriteFile replaces path with data atomically, keeping the mode of the
// file it replaces (0644 for a new one).
func RewriteFile(path string, data []byte) error {
	perm := fs.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		perm = st.Mode().Perm()
	}
	return WriteAtomic(path, data, perm)
}

// WritePrivate writes a state file atomically with mode 0600.
func WritePrivate(path string, data []byte) error { return WriteAtomic(path, data, 0o600) }

// ReadPrivate reads a state file of at most limit bytes after checking
// that nobody else could have written it (CheckPrivate).
func ReadPrivate(path string, limit int64) ([]byte, error) {
	if err := CheckPrivate(path); err != nil {
		return nil, err
	}
	return ReadBounded(path, limit)
}

// beforeRename lets a test kill the process between write and rename.
var beforeRename = func() {}

// WriteAtomic replaces path with data so that a crash or a full disk
// leaves the old file or the new one, never a torn one. The temporary
// file is created exclusively (O_EXCL, random name) beside path.
func WriteAtomic(path string, data []byte, perm fs.FileMode) error {
	dir := filepath.Dir(path)
	// The temporary file goes beside path, so the rename never crosses
	// a filesystem, with perm exactly (not cut by the umask).
	tmp, err := renameio.NewPendingFile(path, renameio.WithTempDir(dir), renameio.WithStaticPermissions(perm))
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer tmp.Cleanup() // after a successful replace this is a no-op
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	beforeRename()
	if err := tmp.CloseAtomicallyReplace(); err != nil { // fsync, close, rename
		return fmt.Errorf("replace %s: %w", path, err)
	}
	// renameio does not sync the directory: without it the rename itself
	// may not survive a crash.
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("open %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}
