package recording

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// CreateFile creates path for a recording or a report. With force it replaces a
// regular file, but never follows a symlink (a root tool would write
// through it) or truncates a device or a FIFO.
func CreateFile(path string, force bool) (*os.File, error) {
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if force {
		flags = os.O_WRONLY | os.O_CREATE | syscall.O_NOFOLLOW | syscall.O_NONBLOCK
	}
	f, err := os.OpenFile(path, flags, 0o644)
	switch {
	case errors.Is(err, fs.ErrExist):
		return nil, fmt.Errorf("%s exists: choose another name or pass --force", path)
	case errors.Is(err, syscall.ELOOP):
		return nil, fmt.Errorf("%s is a symlink: refusing to write through it", path)
	case err != nil:
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is not a regular file: refusing to overwrite it", path)
	}
	if err := f.Truncate(0); err != nil {
		f.Close()
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	return f, nil
}

// WriteFile writes data to path as CreateFile creates it (replacing a
// regular file only with force), closing it before it returns.
func WriteFile(path string, data []byte, force bool) error {
	f, err := CreateFile(path, force)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	return errors.Join(err, f.Close())
}
