package exporter

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	"github.com/tablefull/tablefull/model"
)

// Heartbeat is a feed that touches a file after each sample it hands
// on: the exporter's liveness, read by `tablefull alive` without a
// connection (a probe's TCP connection needs a conntrack entry, which a
// full table refuses: a liveness probe over TCP would restart the
// exporter in the very incident it reports).
type Heartbeat struct {
	model.Feed
	// file is the heartbeat, kept open: it is touched through the
	// descriptor, never by its path again, so a link put in its place
	// later leads nowhere.
	file *os.File
}

// NewHeartbeat creates path (or opens it if it exists) and wraps feed.
// The exporter runs as root: a link at path is not followed (it would
// create or touch another file) and a FIFO or device is refused.
func NewHeartbeat(feed model.Feed, path string) (*Heartbeat, error) {
	f, err := openRegular(path, os.O_CREATE|os.O_WRONLY|syscall.O_NOFOLLOW)
	if err != nil {
		return nil, fmt.Errorf("--heartbeat: %w", err)
	}
	return &Heartbeat{Feed: feed, file: f}, nil
}

// Next implements model.Feed.
func (h *Heartbeat) Next() (model.Sample, error) {
	s, err := h.Feed.Next()
	if err == nil {
		tv := syscall.NsecToTimeval(time.Now().UnixNano())
		syscall.Futimes(int(h.file.Fd()), []syscall.Timeval{tv, tv}) // a failed touch shows as a stale heartbeat: the probe says so
	}
	return s, err
}

// ErrStale is a heartbeat older than the probe allows.
var ErrStale = errors.New("stale heartbeat")

// Alive checks that the heartbeat file changed within d: `tablefull
// alive`, a liveness probe that opens no connection.
func Alive(path string, d time.Duration, stdout io.Writer) error {
	st, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("heartbeat: %w", err)
	}
	age := time.Since(st.ModTime())
	if age > d {
		return fmt.Errorf("%w: %s last changed %s ago (more than %s): the exporter is not sampling", ErrStale, path, age.Round(time.Second), d)
	}
	fmt.Fprintf(stdout, "alive: %s changed %s ago\n", path, age.Round(time.Millisecond))
	return nil
}
