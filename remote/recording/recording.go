package recording

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/remote/stream"
)

// Recording is a saved stream read back whole.
type Recording struct {
	Host    model.Host
	Started time.Time
	Samples []model.Sample
	Events  []stream.Event
	// Torn is true when the last line was cut (the writer was killed);
	// everything before it is kept.
	Torn bool
	// Damaged counts lines that were skipped as garbage.
	Damaged int
}

// ReadRecording reads a whole stream.
func ReadRecording(r io.Reader) (*Recording, error) {
	d := stream.NewDecoder(r)
	if err := d.Header(); err != nil {
		return nil, err
	}
	rec := &Recording{Host: d.Host, Started: d.Started}
	for {
		s, ev, err := d.Next()
		if errors.Is(err, io.EOF) {
			rec.Torn, rec.Damaged = d.Torn != nil, d.Damaged
			return rec, nil
		}
		if err != nil {
			return nil, err
		}
		if s != nil {
			rec.Samples = append(rec.Samples, *s)
		} else {
			rec.Events = append(rec.Events, *ev)
		}
	}
}

// Replay hands out a recording's samples as a feed, one per Next: from
// memory (NewReplay), or read from the file as the console asks for them
// (OpenReplay), so a long recording is never loaded whole. The console
// plays them back by moving through its history.
type Replay struct {
	host model.Host
	// mem holds an in-memory recording; dec reads a file instead.
	mem   []model.Sample
	dec   *stream.Decoder
	f     *os.File
	first *model.Sample
	done  chan struct{}
	once  sync.Once
}

// NewReplay plays rec; source labels it in the header ("replay FILE").
func NewReplay(rec *Recording, source string) *Replay {
	h := rec.Host
	h.Source = source
	return &Replay{mem: rec.Samples, host: h, done: make(chan struct{})}
}

// OpenReplay reads the recording at path as it plays. It reads the header
// and the first sample, so that a file that is not a recording, or holds
// no sample, is an error here.
func OpenReplay(path, source string) (*Replay, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open recording: %w", err)
	}
	r := &Replay{dec: stream.NewDecoder(f), f: f, done: make(chan struct{})}
	if err := r.dec.Header(); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	r.host = r.dec.Host
	r.host.Source = source
	s, err := r.read()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: the recording holds no samples", path)
	}
	r.first = &s
	return r, nil
}

// read decodes the next sample of a file, skipping events (the decoder
// skips damaged lines; a torn last line ends it like the end of the file).
func (r *Replay) read() (model.Sample, error) {
	for {
		s, _, err := r.dec.Next()
		if err != nil {
			return model.Sample{}, err
		}
		if s != nil {
			return *s, nil
		}
	}
}

// Damaged counts the lines skipped as garbage so far.
func (r *Replay) Damaged() int {
	if r.dec == nil {
		return 0
	}
	return r.dec.Damaged
}

// Host is the recorded host.
func (r *Replay) Host() model.Host { return r.host }

// First is the first sample (its interval paces the playback).
func (r *Replay) First() (model.Sample, bool) {
	switch {
	case r.first != nil:
		return *r.first, true
	case len(r.mem) > 0:
		return r.mem[0], true
	}
	return model.Sample{}, false
}

// Next returns the next sample; after the last, io.EOF: the feed ended.
func (r *Replay) Next() (model.Sample, error) {
	switch {
	case r.first != nil:
		s := *r.first
		r.first = nil
		return s, nil
	case r.dec != nil:
		if s, err := r.read(); err == nil {
			return s, nil
		}
	case len(r.mem) > 0:
		s := r.mem[0]
		r.mem = r.mem[1:]
		return s, nil
	}
	return model.Sample{}, io.EOF // the recording played out: the console's last frame says so
}

// Stop releases a blocked Next and closes the file.
func (r *Replay) Stop() {
	r.once.Do(func() {
		close(r.done)
		if r.f != nil {
			r.f.Close()
		}
	})
}
