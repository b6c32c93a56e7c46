package recording

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/remote/stream"
)

// Tee passes a source's samples through and, while recording, appends
// each to a file as a stream. Toggle starts and stops it.
type Tee struct {
	model.Feed
	// Dir is where recordings are created ("" for the working directory).
	Dir string

	mu    sync.Mutex
	f     *os.File
	enc   *stream.Encoder
	path  string
	since time.Time
}

// Next reads the next sample and records it when recording.
func (t *Tee) Next() (model.Sample, error) {
	s, err := t.Feed.Next()
	if err != nil {
		return s, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.f != nil && t.enc == nil { // the header waits for the first sample: a remote names its host by then
		enc, werr := stream.NewEncoder(t.f, t.Host(), t.since)
		if werr != nil {
			t.stopLocked()
			return s, fmt.Errorf("recording stopped: %w", werr)
		}
		t.enc = enc
	}
	if t.enc != nil {
		if werr := t.enc.Sample(stream.SinceStart(s, t.since)); werr != nil {
			t.stopLocked()
			return s, fmt.Errorf("recording stopped: %w", werr)
		}
	}
	return s, nil
}

// SetInterval passes an interval change to the source.
func (t *Tee) SetInterval(d time.Duration) {
	if s, ok := t.Feed.(model.IntervalSetter); ok {
		s.SetInterval(d)
	}
}

// SetCensus passes a census request to the source.
func (t *Tee) SetCensus(on bool) {
	if s, ok := t.Feed.(model.CensusSetter); ok {
		s.SetCensus(on)
	}
}

// Start records to path (which must not exist).
func (t *Tee) Start(path string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.f != nil {
		return fmt.Errorf("already recording to %s", t.path)
	}
	return t.openLocked(path)
}

// openLocked creates the recording; its header is written with the first
// sample.
func (t *Tee) openLocked(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("start recording: %w", err)
	}
	t.f, t.path, t.since = f, path, time.Now()
	return nil
}

// Toggle starts recording to a new file named after the host and time,
// or stops the current recording. It returns the file, as an absolute
// path, and whether recording is now on.
func (t *Tee) Toggle() (string, bool, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.f != nil {
		path := t.path
		return path, false, t.stopLocked()
	}
	host := t.Host()
	name := fmt.Sprintf("tablefull-%s-%s.jsonl", safeName(host.Name), time.Now().Format("20060102-150405"))
	if t.Dir != "" {
		name = filepath.Join(t.Dir, name)
	}
	if abs, err := filepath.Abs(name); err == nil { // said whole: the console may have been started anywhere
		name = abs
	}
	if err := t.openLocked(name); err != nil {
		return "", false, err
	}
	return name, true, nil
}

// Tuned records a tuning action and its read-back as the agent answers
// it (an event of the action's type carrying a Reply), so a recording
// keeps what was changed and what the kernel read back, also for knobs
// a sample does not carry. Nothing is written when not recording.
func (t *Tee) Tuned(action string, at time.Time, results []knob.Result) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.enc == nil {
		return nil
	}
	b, err := tunedText(results)
	if err != nil {
		return fmt.Errorf("record %s: %w", action, err)
	}
	if err := t.enc.Event(stream.Event{Time: at, Type: action, Text: string(b)}); err != nil {
		t.stopLocked()
		return fmt.Errorf("recording stopped: %w", err)
	}
	return nil
}

// Stop ends the recording if one is running; it never starts one.
func (t *Tee) Stop() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.stopLocked()
}

func (t *Tee) stopLocked() error {
	if t.f == nil {
		return nil
	}
	err := t.f.Close()
	t.f, t.enc = nil, nil
	return err
}

// safeName is a host name (from a remote's header: foreign text) made fit
// for a file name: letters, digits, dot, dash and underscore, at most 64.
func safeName(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 128 && (r == '.' || r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return r
		}
		return '_'
	}, s)
	s = strings.TrimLeft(s, ".")
	if len(s) > 64 {
		s = s[:64]
	}
	if s == "" {
		return "host"
	}
	return s
}
