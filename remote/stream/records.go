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
	w := &rec.wireSample
	s.object([]slot{{"k", &rec.Kind}, {"t", &w.TimeMS}, {"iv", &w.IntervalMS}, {"notes", &w.Notes},
		{"ct", func() { w.Table = table(s) }}, {"cs", func() { w.Counters = d.counters(s) }},
		{"cpu", func() { w.CPU = rows(s, &d.cpu, func(r *cpuRow) { ints(s, r[:]) }) }},
		{"disk", func() {
			w.Disk = rows(s, &d.disk, func(r *diskRow) { s.tuple(func() { r.name = s.name(d.names) }, &r.reads, &r.writes, &r.busy) })
		}},
		{"tcp", func() { w.TCP = new(tcpRow); uints(s, w.TCP[:]) }},
		{"klog", func() { w.KernelLog = klog(s) }}, {"en", func() { w.Entries = entries(s) }},
		{"ab", func() { s.decodeRaw(&w.Absent) }},
		{"type", &rec.Type}, {"text", &rec.Text}, {"et", &rec.EventMS},
	}, func(key []byte) bool {
		p := partOf(key)
		if p != nil {
			s.decodeRaw(p.at(&rec.parts))
		}
		return p != nil
	})
	s.end()
	return rec, s.ok
}

// kept is a row array to reuse for the next line, unless a line made it
// larger than a sample within the limits needs (then it is let go).
func kept[T any](rows []T) []T {
	if cap(rows) > MaxCPUs {
		return nil
	}
	return rows
}

// rows reads an array of rows, each by read, into buf's array: kept for
// the next line (fromWire copies what it keeps), so a row costs no
// allocation.
func rows[T any](s *scan, buf *[]T, read func(r *T)) []T {
	rs := (*buf)[:0]
	s.array(func() {
		var zero T
		rs = append(rs, zero)
		read(&rs[len(rs)-1]) // in place: a row read through a pointer of its own would escape
	})
	*buf = kept(rs)
	return nonNil(rs)
}

// nonNil is rows, or an empty slice for none: encoding/json makes "[]"
// an empty slice, not a nil one.
func nonNil[T any](rows []T) []T {
	if rows == nil {
		return []T{}
	}
	return rows
}

func table(s *scan) *wireTable {
	t := &wireTable{}
	s.object([]slot{{"s", &t.Status}, {"n", &t.Count}, {"pk", &t.Peak}, {"max", &t.Max}, {"b", &t.Buckets},
		{"tw", &t.TimeWaitHold}, {"h", &t.Holds}}, nil)
	return t
}

func (d *lineDecoder) counters(s *scan) *wireStats {
	st := &wireStats{}
	s.object([]slot{{"src", &st.Source}, {"note", &st.Note}, {"rep", &st.Reported},
		{"cpu", func() { st.PerCPU = rows(s, &d.stats, func(r *statsRow) { uints(s, r[:]) }) }}}, nil)
	return st
}

func klog(s *scan) *wireKLog {
	k := &wireKLog{}
	lines := func() {
		k.Lines = []klogRow{}
		s.array(func() {
			var l klogRow
			s.tuple(&l.at, &l.text, &l.netns, &l.name)
			k.Lines = append(k.Lines, l)
		})
	}
	s.object([]slot{{"r", &k.Readable}, {"note", &k.Note}, {"sup", &k.Suppressed}, {"lines", lines}}, nil)
	return k
}

func entries(s *scan) *wireEntries {
	e := &wireEntries{}
	s.object([]slot{{"src", &e.Source}, {"note", &e.Note}, {"ep", &e.Epoch}, {"n", &e.New}, {"e", &e.Ended},
		{"v", &e.Evicted}, {"l", &e.Lost}, {"td", &e.TopDests}, {"ts", &e.TopSources}}, nil)
	return e
}
