package remote

import (
	"context"
	"io"
	"os"
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

// StartStream writes a header naming source, then every sample of feed
// (its times since the start: remote.SinceStart), until the feed ends or
// a write fails.
func StartStream(feed model.Feed, w io.Writer, source string) (*Stream, error) {
	host := feed.Host()
	host.Source = source
	start := time.Now()
	enc, err := NewEncoder(w, host, start)
	if err != nil {
		return nil, err
	}
	st := &Stream{Enc: enc, Done: make(chan error, 1)}
	go func() {
		for {
			s, err := feed.Next()
			if err != nil { // the agent's own collector: its only error is its end
				st.Done <- nil
				return
			}
			if err := enc.Sample(SinceStart(s, start)); err != nil {
				st.Done <- err
				return
			}
		}
	}()
	return st, nil
}

// Record writes feed's stream, "recorded", to f until ctx ends, then
// syncs f: tablefull record's life. A failed write ends it with its
// error; a feed that ends ends it too.
func Record(ctx context.Context, feed model.Feed, f *os.File) error {
	st, err := StartStream(feed, f, "recorded")
	if err != nil {
		return err
	}
	select {
	case <-ctx.Done():
	case err := <-st.Done:
		if err != nil {
			return err
		}
	}
	return f.Sync()
}

// ServeControl serves the control requests read from r beside the
// stream (Serve, answered as the stream's events) until r ends, the
// stream ends or ctx does (nil then): the agent's life.
func (st *Stream) ServeControl(ctx context.Context, r io.Reader, c Controller, writable bool, warn io.Writer) error {
	done := make(chan error, 1)
	go func() { done <- Serve(r, c, writable, st.Enc.Event, warn) }()
	select {
	case err := <-done:
		return err
	case err := <-st.Done:
		return err
	case <-ctx.Done():
		return nil
	}
}
