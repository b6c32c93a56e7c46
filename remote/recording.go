package remote

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/tablefull/tablefull/model"
)

// Recording is a saved stream read back whole.
type Recording struct {
	Host    model.Host
	Started time.Time
	Samples []model.Sample
	Events  []Event
	// Torn is true when the last line was cut (the writer was killed);
	// everything before it is kept.
	Torn bool
	// Damaged counts lines that were skipped as garbage.
	Damaged int
}

// ReadRecordingFile reads a recording, naming the file in every error.
func ReadRecordingFile(path string) (*Recording, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open recording: %w", err)
	}
	defer f.Close()
	rec, err := ReadRecording(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rec, nil
}

// ReadRecording reads a whole stream.
func ReadRecording(r io.Reader) (*Recording, error) {
	d := NewDecoder(r)
	if err := d.Header(); err != nil {
		return nil, err
	}
	rec := &Recording{Host: d.Host, Started: d.Started}
	for {
		s, ev, err := d.Next()
		switch {
		case errors.Is(err, io.EOF):
			return rec, nil
		case errors.Is(err, ErrTruncated):
			rec.Torn = true
			return rec, nil
		case errors.Is(err, ErrGarbage):
			rec.Damaged++
			continue
		case err != nil:
			return nil, err
		}
		if s != nil {
			rec.Samples = append(rec.Samples, *s)
		} else {
			rec.Events = append(rec.Events, *ev)
		}
	}
}

// Replay hands out a recording's samples as a feed, all at once: the
// console plays them back by moving through its history.
type Replay struct {
	rec  *Recording
	host model.Host
	next int
	done chan struct{}
	once sync.Once
}

// NewReplay plays rec; source labels it in the header ("replay FILE").
func NewReplay(rec *Recording, source string) *Replay {
	h := rec.Host
	h.Source = source
	return &Replay{rec: rec, host: h, done: make(chan struct{})}
}

// Host is the recorded host.
func (r *Replay) Host() model.Host { return r.host }

// Len is the number of samples.
func (r *Replay) Len() int { return len(r.rec.Samples) }

// Next returns the next sample; after the last it blocks until Stop.
func (r *Replay) Next() (model.Sample, error) {
	if r.next < len(r.rec.Samples) {
		r.next++
		return r.rec.Samples[r.next-1], nil
	}
	<-r.done
	return model.Sample{}, io.EOF
}

// Stop releases a blocked Next.
func (r *Replay) Stop() { r.once.Do(func() { close(r.done) }) }
