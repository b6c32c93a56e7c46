package main

import (
	"fmt"
	"os"
	"time"

	"github.com/tablefull/tablefull/remote"
)

// record writes a stream of this host to path until duration passes (0:
// until interrupted). It refuses to overwrite a file unless force.
func record(o options, path string, duration time.Duration, force bool) error {
	if duration < 0 {
		return usageError{fmt.Errorf("--duration %s: want a positive duration, or 0 to record until stopped", duration)}
	}
	f, err := remote.CreateFile(path, force)
	if err != nil {
		return err
	}
	defer f.Close()
	live, st, err := startLocalStream(o, f, "recorded")
	if err != nil {
		return err
	}
	defer live.Stop()
	stopped, stop := untilStopped(duration)
	defer stop()
	select {
	case <-stopped.Done():
	case err := <-st.Done:
		return err
	}
	fmt.Fprintf(os.Stderr, "tablefull: recorded %s\n", path)
	return f.Sync()
}
