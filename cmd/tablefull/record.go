package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"time"
)

// record writes a stream of this host to path until duration passes (0:
// until interrupted). It refuses to overwrite a file unless force.
func record(o options, path string, duration time.Duration, force bool) error {
	f, err := createRecording(path, force)
	if err != nil {
		return err
	}
	defer f.Close()
	ls, err := startLocalStream(o, f, "recorded")
	if err != nil {
		return err
	}
	defer ls.Stop()
	stopped, stop := untilStopped(duration)
	defer stop()
	select {
	case <-stopped.Done():
	case err := <-ls.done:
		return err
	}
	fmt.Fprintf(os.Stderr, "tablefull: recorded %s\n", path)
	return f.Sync()
}

// createRecording creates path for a recording. With force it replaces a
// regular file, but never follows a symlink (a root tool would write
// through it) or truncates a device or a FIFO.
func createRecording(path string, force bool) (*os.File, error) {
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
		return nil, fmt.Errorf("create recording: %w", err)
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is not a regular file: refusing to overwrite it", path)
	}
	if err := f.Truncate(0); err != nil {
		f.Close()
		return nil, fmt.Errorf("create recording: %w", err)
	}
	return f, nil
}
