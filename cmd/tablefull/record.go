package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"
)

// record writes a stream of this host to path until duration passes (0:
// until interrupted). It refuses to overwrite a file unless force.
func record(o options, path string, duration time.Duration, force bool) error {
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if force {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s exists: choose another name or pass --force", path)
	}
	if err != nil {
		return fmt.Errorf("create recording: %w", err)
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
