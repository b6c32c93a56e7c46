package stream

import (
	"encoding/json"

	"github.com/tablefull/tablefull/model"
)

// lineDecoder turns one line into a record: by scan, without reflection,
// when the line is shaped as our Encoder writes it, else by
// encoding/json. Its row arrays are reused from line to line (fromWire
// copies what it keeps), so a row costs no allocation.
type lineDecoder struct {
	cpu   []cpuRow
	stats []statsRow
	disk  []diskRow
	names map[string]string
}

// decode decodes line into a record.
func (d *lineDecoder) decode(line []byte) (record, error) {
	if rec, ok := d.scan(line); ok {
		return rec, nil
	}
	return decodeJSON(line)
}

// decodeJSON is the decoder for lines of any other shape: encoding/json
// reads the rows into a record, and each of the vocabulary's parts the
// line carries into its field of the sample.
func decodeJSON(line []byte) (record, error) {
	var rec record
	if err := json.Unmarshal(line, &rec); err != nil {
		return rec, err
	}
	return rec, decodeParts(line, &rec.parts)
}

// decodeParts reads, with encoding/json, the vocabulary's parts a line
// carries into s.
func decodeParts(line []byte, s *model.Sample) error {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(line, &top); err != nil {
		return err
	}
	for key, raw := range top {
		if p := partOf([]byte(key)); p != nil {
			if err := json.Unmarshal(raw, p.at(s)); err != nil {
				return err
			}
		}
	}
	return nil
}

// scan decodes line as our Encoder writes it; ok is false for any other
// shape.
func (d *lineDecoder) scan(line []byte) (rec record, ok bool) {
	if d.names == nil {
		d.names = map[string]string{}
	}
	s := &scan{b: line, ok: true}
	s.object(func(key []byte) (uint64, bool) {
		bit, known := fieldBits[string(key)]
		if !known {
			return 0, false
		}
		if !d.field(s, &rec, key) {
			return 0, false
		}
		return bit, true
	})
	s.end()
	return rec, s.ok
}

// field reads the value of key, one of the vocabulary's, into rec; false for
// a key the scanner does not read.
func (d *lineDecoder) field(s *scan, rec *record, key []byte) bool {
	w := &rec.wireSample
	switch string(key) {
	case "k":
		rec.Kind = s.str()
		return true
	case "t":
		w.TimeMS = s.int()
		return true
	case "iv":
		w.IntervalMS = s.int()
		return true
	case "ct":
		w.Table = d.table(s)
		return true
	case "cs":
		w.Counters = d.counters(s)
		return true
	case "cpu":
		w.CPU = d.cpuRows(s)
		return true
	case "disk":
		w.Disk = d.diskRows(s)
		return true
	case "tcp":
		var r tcpRow
		uints(s, r[:])
		w.TCP = &r
		return true
	case "klog":
		w.KernelLog = klog(s)
		return true
	case "en":
		w.Entries = entries(s)
		return true
	case "notes":
		w.Notes = strs(s)
		return true
	case "ab":
		if raw := s.raw(); s.ok && w.Absent.UnmarshalJSON(raw) != nil {
			s.fail()
		}
		return true
	case "type":
		rec.Type = s.str()
		return true
	case "text":
		rec.Text = s.str()
		return true
	case "et":
		rec.EventMS = s.int()
		return true
	}
	if p := partOf(key); p != nil {
		s.decodeRaw(p.at(&rec.parts))
		return true
	}
	return false
}

// kept is a row array to reuse for the next line, unless a line made it
// larger than a sample within the limits needs (then it is let go).
func kept[T any](rows []T) []T {
	if cap(rows) > MaxCPUs {
		return nil
	}
	return rows
}

func (d *lineDecoder) cpuRows(s *scan) []cpuRow {
	rows := d.cpu[:0]
	s.array(func() {
		var r cpuRow
		ints(s, r[:])
		rows = append(rows, r)
	})
	d.cpu = kept(rows)
	return nonNil(rows)
}

func (d *lineDecoder) statsRows(s *scan) []statsRow {
	rows := d.stats[:0]
	s.array(func() {
		var r statsRow
		uints(s, r[:])
		rows = append(rows, r)
	})
	d.stats = kept(rows)
	return nonNil(rows)
}

func (d *lineDecoder) diskRows(s *scan) []diskRow {
	rows := d.disk[:0]
	s.array(func() {
		var r diskRow
		s.expect('[')
		r.name = s.name(d.names)
		s.expect(',')
		r.reads = s.uint()
		s.expect(',')
		r.writes = s.uint()
		s.expect(',')
		r.busy = s.uint()
		s.expect(']')
		rows = append(rows, r)
	})
	d.disk = kept(rows)
	return nonNil(rows)
}

// nonNil is rows, or an empty slice for none: encoding/json makes "[]"
// an empty slice, not a nil one.
func nonNil[T any](rows []T) []T {
	if rows == nil {
		return []T{}
	}
	return rows
}

func (d *lineDecoder) table(s *scan) *wireTable {
	t := &wireTable{}
	s.object(func(key []byte) (uint64, bool) {
		switch string(key) {
		case "s":
			t.Status = model.TableStatus(s.str())
			return 1 << 0, true
		case "n":
			t.Count = s.uint()
			return 1 << 1, true
		case "pk":
			t.Peak = s.uint()
			return 1 << 2, true
		case "max":
			t.Max = s.uint()
			return 1 << 3, true
		case "b":
			t.Buckets = s.uint()
			return 1 << 4, true
		case "tw":
			t.TimeWaitHold = s.uint()
			return 1 << 5, true
		case "h":
			var h [model.NumClasses]uint64
			uints(s, h[:])
			t.Holds = &h
			return 1 << 6, true
		}
		return 0, false
	})
	return t
}

func (d *lineDecoder) counters(s *scan) *wireStats {
	st := &wireStats{}
	s.object(func(key []byte) (uint64, bool) {
		switch string(key) {
		case "src":
			st.Source = s.str()
			return 1 << 0, true
		case "note":
			st.Note = s.str()
			return 1 << 1, true
		case "rep":
			st.Reported = uint(s.uint())
			return 1 << 2, true
		case "cpu":
			st.PerCPU = d.statsRows(s)
			return 1 << 3, true
		}
		return 0, false
	})
	return st
}

func klog(s *scan) *wireKLog {
	k := &wireKLog{}
	s.object(func(key []byte) (uint64, bool) {
		switch string(key) {
		case "r":
			k.Readable = s.bool()
			return 1 << 0, true
		case "note":
			k.Note = s.str()
			return 1 << 1, true
		case "sup":
			k.Suppressed = s.uint()
			return 1 << 2, true
		case "lines":
			k.Lines = []klogRow{}
			s.array(func() {
				var l klogRow
				s.expect('[')
				l.at = s.int()
				s.expect(',')
				l.text = s.str()
				s.expect(',')
				l.netns = s.uint()
				s.expect(',')
				l.name = s.str()
				s.expect(']')
				k.Lines = append(k.Lines, l)
			})
			return 1 << 3, true
		}
		return 0, false
	})
	return k
}

func entries(s *scan) *wireEntries {
	e := &wireEntries{}
	s.object(func(key []byte) (uint64, bool) {
		switch string(key) {
		case "src":
			e.Source = s.str()
			return 1 << 0, true
		case "note":
			e.Note = s.str()
			return 1 << 1, true
		case "ep":
			e.Epoch = s.uint()
			return 1 << 2, true
		case "n":
			var n [model.NumProtos]uint64
			uints(s, n[:])
			e.New = &n
			return 1 << 3, true
		case "e":
			var ended [model.NumClasses]uint64
			uints(s, ended[:])
			e.Ended = &ended
			return 1 << 4, true
		case "v":
			var evicted [model.NumClasses]uint64
			uints(s, evicted[:])
			e.Evicted = &evicted
			return 1 << 8, true
		case "l":
			e.Lost = s.uint()
			return 1 << 5, true
		case "td":
			e.TopDests = countRows(s)
			return 1 << 6, true
		case "ts":
			e.TopSources = countRows(s)
			return 1 << 7, true
		}
		return 0, false
	})
	return e
}

func countRows(s *scan) []countRow {
	rows := []countRow{}
	s.array(func() {
		var r countRow
		s.expect('[')
		r.key = s.str()
		s.expect(',')
		r.n = int(s.int())
		s.expect(']')
		rows = append(rows, r)
	})
	return rows
}

func strs(s *scan) []string {
	out := []string{}
	s.array(func() { out = append(out, s.str()) })
	return out
}
