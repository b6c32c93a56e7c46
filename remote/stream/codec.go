package stream

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/tablefull/tablefull/model"
)

// Errors a Decoder returns; test them with errors.Is.
var (
	// ErrNotStream: the first line is not a tablefull stream header.
	ErrNotStream = errors.New("not a tablefull stream")
	// ErrEmptyStream: the stream ended before its first line (with
	// ErrNotStream): nothing was printed, the command could not connect.
	ErrEmptyStream = errors.New("empty")
	// ErrNewerVersion: the stream was written by a newer tablefull.
	ErrNewerVersion = errors.New("stream version is newer than this tablefull reads")
	// ErrTruncated: the stream ended in the middle of a line.
	ErrTruncated = errors.New("stream ends with a truncated line")
	// ErrGarbage: a line is not a valid record.
	ErrGarbage = errors.New("garbage on the stream")
)

// maxLine bounds one record, so garbage without newlines cannot grow
// memory without limit.
const maxLine = 4 << 20

// Encoder writes a stream. Each record goes out in one Write, so a reader
// (or a recording killed mid-way) sees whole lines or a torn last one.
// It is safe for concurrent use.
type Encoder struct {
	mu  sync.Mutex
	w   io.Writer
	buf bytes.Buffer
}

// NewEncoder writes the header for host and returns the encoder.
func NewEncoder(w io.Writer, host model.Host, started time.Time) (*Encoder, error) {
	e := &Encoder{w: w}
	return e, e.write(header{Magic: "stream", V: Version, Host: host, Started: started}, nil)
}

// Sample writes one sample.
func (e *Encoder) Sample(s model.Sample) error {
	return e.write(record{Kind: "s", wireSample: toWire(s)}, &s)
}

// Event writes one event.
func (e *Encoder) Event(ev Event) error {
	return e.write(record{Kind: "e", wireEvent: wireEvent{Type: ev.Type, Text: ev.Text, EventMS: ms(ev.Time)}}, nil)
}

// write encodes v as one line, with the vocabulary's parts of the sample
// s (when given) after its rows, and writes it.
func (e *Encoder) write(v any, s *model.Sample) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.buf.Reset()
	enc := json.NewEncoder(&e.buf)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("encode: %w", err)
	}
	if s != nil {
		if err := e.appendParts(enc, s); err != nil {
			return err
		}
	}
	if _, err := e.w.Write(e.buf.Bytes()); err != nil {
		return fmt.Errorf("write stream: %w", err)
	}
	return nil
}

// appendParts writes, into the line v's encoding left in buf, each part
// of the vocabulary s has: the line's closing brace moves after them.
func (e *Encoder) appendParts(enc *json.Encoder, s *model.Sample) error {
	e.buf.Truncate(e.buf.Len() - len("}\n"))
	for _, f := range vocabulary {
		if f.part == nil || !f.part.present(s) {
			continue
		}
		e.buf.WriteString(`,"` + f.Key + `":`)
		if err := enc.Encode(f.part.at(s)); err != nil {
			return fmt.Errorf("encode %s: %w", f.Key, err)
		}
		e.buf.Truncate(e.buf.Len() - len("\n"))
	}
	e.buf.WriteString("}\n")
	return nil
}

// Decoder reads a stream: its header, then its records one at a time.
// It owns the policy for lines that are not whole records: a damaged one
// is skipped and counted, a torn last one ends the stream like its end.
type Decoder struct {
	r     *bufio.Reader
	buf   []byte
	line  int
	lines lineDecoder
	// Host is the header's host, once Header has been read.
	Host    model.Host
	Started time.Time
	// Damaged counts the lines skipped as garbage so far.
	Damaged int
	// OnDamaged, when set, is told of each damaged line (its error wraps
	// ErrGarbage and names the line).
	OnDamaged func(error)
	// Torn is set, wrapping ErrTruncated, when the stream ended in the
	// middle of a line (a writer killed mid-way); everything before it
	// was read.
	Torn error
}

// NewDecoder reads from r.
func NewDecoder(r io.Reader) *Decoder {
	return &Decoder{r: bufio.NewReaderSize(r, 64<<10)}
}

// Header reads and checks the first line.
func (d *Decoder) Header() error {
	line, err := d.readLine()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("%w: %w", ErrNotStream, ErrEmptyStream)
		}
		if errors.Is(err, ErrTruncated) || errors.Is(err, ErrGarbage) {
			return fmt.Errorf("%w: %w", ErrNotStream, err)
		}
		return err
	}
	var h header
	if err := json.Unmarshal(line, &h); err != nil || h.Magic != "stream" {
		return fmt.Errorf("%w: first line is %s", ErrNotStream, Snippet(line))
	}
	if h.V < 1 {
		return fmt.Errorf("%w: version %d", ErrNotStream, h.V)
	}
	if h.V > Version {
		return fmt.Errorf("%w: version %d, this tablefull reads %d: upgrade tablefull", ErrNewerVersion, h.V, Version)
	}
	d.Host, d.Started = boundHost(h.Host), h.Started
	return nil
}

// Next returns the next sample or event (exactly one is non-nil). It
// skips damaged lines (counting them in Damaged) and returns io.EOF at the
// end of the stream, a torn last line included (then Torn is set); any
// other error is the reader's.
func (d *Decoder) Next() (*model.Sample, *Event, error) {
	for {
		s, ev, err := d.record()
		switch {
		case errors.Is(err, ErrGarbage):
			d.Damaged++
			if d.OnDamaged != nil {
				d.OnDamaged(err)
			}
			continue
		case errors.Is(err, ErrTruncated):
			d.Torn = err
			return nil, nil, io.EOF
		}
		if s != nil {
			s.KernelRelease = d.Host.Kernel // the header's, said once for every sample
		}
		return s, ev, err
	}
}

// record decodes the next line: a sample, an event, or an error
// (ErrGarbage with the line number for a damaged line, ErrTruncated for
// a torn one).
func (d *Decoder) record() (*model.Sample, *Event, error) {
	for {
		line, err := d.readLine()
		if err != nil {
			return nil, nil, err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if err := checkShape(line); err != nil {
			return nil, nil, fmt.Errorf("%w: line %d: %w", ErrGarbage, d.line, err)
		}
		rec, err := d.lines.decode(line)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: line %d: %s", ErrGarbage, d.line, Snippet(line))
		}
		switch rec.Kind {
		case "s":
			s, err := fromWire(&rec)
			if err != nil {
				return nil, nil, fmt.Errorf("%w: line %d: %w", ErrGarbage, d.line, err)
			}
			return &s, nil, nil
		case "e":
			return nil, &Event{Time: fromMS(rec.EventMS), Type: bound(rec.Type), Text: rec.Text}, nil
		}
		// A kind from a newer 1.x writer: skip it.
	}
}

// readLine returns the next line in a buffer reused by the next call
// (dropped after an unusually long line, so it does not stay large).
func (d *Decoder) readLine() ([]byte, error) {
	if cap(d.buf) > 1<<20 {
		d.buf = nil
	}
	line := d.buf[:0]
	defer func() { d.buf = line[:0] }()
	for {
		chunk, err := d.r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxLine {
			d.discardLine()
			return nil, fmt.Errorf("%w: line %d longer than %d bytes", ErrGarbage, d.line+1, maxLine)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			if len(line) > 0 && errors.Is(err, io.EOF) {
				return nil, fmt.Errorf("%w (line %d)", ErrTruncated, d.line+1)
			}
			return nil, err
		}
		d.line++
		return line, nil
	}
}

func (d *Decoder) discardLine() {
	for {
		_, err := d.r.ReadSlice('\n')
		if !errors.Is(err, bufio.ErrBufferFull) {
			d.line++
			return
		}
	}
}

// Snippet is the start of a line, quoted, for an error message about it.
func Snippet(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) > 60 {
		b = append(b[:60:60], "…"...)
	}
	return fmt.Sprintf("%q", b)
}

// boundHost bounds a header's strings.
func boundHost(h model.Host) model.Host {
	h.Name, h.Kernel, h.Source = bound(h.Name), bound(h.Kernel), bound(h.Source)
	return h
}
