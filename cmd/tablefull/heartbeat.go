package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/tablefull/tablefull/model"
)

// heartbeat is a feed that touches a file after each sample it hands
// on: the exporter's liveness, read by `tablefull alive` without a
// connection (a probe's TCP connection needs a conntrack entry, which a
// full table refuses: a liveness probe over TCP would restart the
// exporter in the very incident it reports).
type heartbeat struct {
	model.Feed
	path string
}

// newHeartbeat creates path (or opens it if it exists) and wraps feed.
func newHeartbeat(feed model.Feed, path string) (*heartbeat, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, fmt.Errorf("--heartbeat: %w", err)
	}
	f.Close()
	return &heartbeat{Feed: feed, path: path}, nil
}

// Next implements model.Feed.
func (h *heartbeat) Next() (model.Sample, error) {
	s, err := h.Feed.Next()
	if err == nil {
		now := time.Now()
		os.Chtimes(h.path, now, now) // a failed touch shows as a stale heartbeat: the probe says so
	}
	return s, err
}

// errStale is a heartbeat older than the probe allows.
var errStale = errors.New("stale heartbeat")

// alive checks that the heartbeat file changed within d.
func alive(path string, d time.Duration, stdout io.Writer) error {
	st, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("heartbeat: %w", err)
	}
	age := time.Since(st.ModTime())
	if age > d {
		return fmt.Errorf("%w: %s last changed %s ago (more than %s): the exporter is not sampling", errStale, path, age.Round(time.Second), d)
	}
	fmt.Fprintf(stdout, "alive: %s changed %s ago\n", path, age.Round(time.Millisecond))
	return nil
}
