package exporter

import (
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/remote/stream"
)

// Follow observes every sample of feed until it ends (stopped, or the
// end of a finite one); any other error is reported with Fail and the
// feed read on.
// The first read of the kernel log is its whole ring buffer: its lines
// from before start and its first count of suppressions happened before
// the exporter, and are left out.
func (e *Exporter) Follow(feed model.Feed, start time.Time) {
	e.mu.Lock()
	e.host = feed.Host()
	e.mu.Unlock()
	first := true
	for {
		s, err := feed.Next()
		switch {
		case model.FeedEnded(err):
			return
		case err != nil:
			e.Fail(err)
			continue
		}
		s = stream.SinceStart(s, start)
		if first {
			s.Kernel.Suppressed, first = 0, false
		}
		e.Observe(s)
	}
}
