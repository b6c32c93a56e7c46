package remote

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/tablefull/tablefull/model"
)

// Source is what Tee records from: any feed of samples.
type Source interface {
	Host() model.Host
	Next() (model.Sample, error)
}

// Tee passes a source's samples through and, while recording, appends
// each to a file as a stream. Toggle starts and stops it.
type Tee struct {
	Source
	// Dir is where recordings are created ("" for the working directory).
	Dir string

	mu   sync.Mutex
	f    *os.File
	enc  *Encoder
	path string
	err  error
}

// Next reads the next sample and records it when recording.
func (t *Tee) Next() (model.Sample, error) {
	s, err := t.Source.Next()
	if err != nil {
		return s, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.enc != nil {
		if werr := t.enc.Sample(s); werr != nil {
			t.stopLocked()
			return s, fmt.Errorf("recording stopped: %w", werr)
		}
	}
	return s, nil
}

// SetInterval passes an interval change to the source.
func (t *Tee) SetInterval(d time.Duration) {
	if s, ok := t.Source.(interface{ SetInterval(time.Duration) }); ok {
		s.SetInterval(d)
	}
}

// SetCensus passes a census request to the source.
func (t *Tee) SetCensus(on bool) {
	if s, ok := t.Source.(interface{ SetCensus(bool) }); ok {
		s.SetCensus(on)
	}
}

// Start records to path (which must not exist).
func (t *Tee) Start(path string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.enc != nil {
		return fmt.Errorf("already recording to %s", t.path)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("start recording: %w", err)
	}
	enc, err := NewEncoder(f, t.Host(), time.Now())
	if err != nil {
		f.Close()
		return err
	}
	t.f, t.enc, t.path = f, enc, path
	return nil
}

// Toggle starts recording to a new file named after the host and time,
// or stops the current recording. It returns the file and whether
// recording is now on.
func (t *Tee) Toggle() (string, bool, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.enc != nil {
		path := t.path
		return path, false, t.stopLocked()
	}
	host := t.Host()
	name := fmt.Sprintf("tablefull-%s-%s.jsonl", safeName(host.Name), time.Now().Format("20060102-150405"))
	if t.Dir != "" {
		name = t.Dir + string(os.PathSeparator) + name
	}
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", false, fmt.Errorf("start recording: %w", err)
	}
	enc, err := NewEncoder(f, host, time.Now())
	if err != nil {
		f.Close()
		return "", false, err
	}
	t.f, t.enc, t.path = f, enc, name
	return name, true, nil
}

func (t *Tee) stopLocked() error {
	if t.f == nil {
		return nil
	}
	err := t.f.Close()
	t.f, t.enc = nil, nil
	return err
}

func safeName(s string) string {
	if s == "" {
		return "host"
	}
	return strings.Map(func(r rune) rune {
		if r == '/' || r == ' ' || r == os.PathSeparator {
			return '_'
		}
		return r
	}, s)
}
