package stream

import (
	"io"
	"time"

	"github.com/tablefull/tablefull/model"
)

// Stream writes a feed's samples to a writer as a stream: what the agent
// prints and what a recording holds.
type Stream struct {
	// Enc is the stream's encoder, for events beside the samples.
	Enc *Encoder
	// Done reports the end of the samples: nil when the feed ended, the
	// write error when the reader went away.
	Done chan error
}

// EventError is the type of the event a stream carries for an error of
// its feed that did not end it: the text says what could not be read.
const EventError = "error"

// Start writes a header naming source, then every sample of feed
// (its times since the start: SinceStart), until the feed ends
// (model.FeedEnded) or a write fails. Any other error of the feed is
// written as an EventError event and the stream goes on, after a wait
// that doubles with each error in a row (errorWait): a feed that fails
// at once, again and again, does not spin or fill the stream with them.
func Start(feed model.Feed, w io.Writer, source string) (*Stream, error) {
	host := feed.Host()
	host.Source = source
	start := time.Now()
	enc, err := NewEncoder(w, host, start)
	if err != nil {
		return nil, err
	}
	st := &Stream{Enc: enc, Done: make(chan error, 1)}
	go func() {
		wait := time.Duration(0)
		for {
			s, err := feed.Next()
			if model.FeedEnded(err) {
				st.Done <- nil
				return
			}
			if err != nil {
				err = enc.Event(Event{Time: time.Now(), Type: EventError, Text: err.Error()})
				wait = min(max(2*wait, errorWait), maxErrorWait)
				time.Sleep(wait)
			} else {
				wait = 0
				err = enc.Sample(SinceStart(s, start))
			}
			if err != nil {
				st.Done <- err
				return
			}
		}
	}()
	return st, nil
}

// errorWait is the wait after a feed's first error in a row, doubling
// for each after it up to maxErrorWait.
var errorWait, maxErrorWait = 100 * time.Millisecond, 10 * time.Second

// SinceStart drops the kernel log lines a sample carries from before
// start: the first read of the kernel log returns its whole ring buffer,
// which a recording should not replay as if it happened during it.
func SinceStart(s model.Sample, start time.Time) model.Sample {
	if len(s.Kernel.Lines) == 0 || s.Kernel.Lines[0].Time.After(start) {
		return s
	}
	var kept []model.KernelLine
	for _, l := range s.Kernel.Lines {
		if !l.Time.Before(start) {
			kept = append(kept, l)
		}
	}
	s.Kernel.Lines = kept
	return s
}
