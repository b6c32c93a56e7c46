package compare

import (
	"math"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/incident"
	"github.com/tablefull/tablefull/model/verdict"
)

// Pass is one recording, or a span of one, as a comparison reads it: what
// it was, where, and its figures. It keeps no frame.
type Pass struct {
	// Source names the recording and the span read ("a.jsonl@+30s..+90s").
	Source  string     `json:"source"`
	Host    model.Host `json:"host"`
	From    time.Time  `json:"from"`
	To      time.Time  `json:"to"`
	Samples int        `json:"samples"`
	// Began and Ended are the knobs at the first and the last tracked
	// frame, in the samples' order.
	Began, Ended []incident.KnobValue `json:"-"`
	// Class is the class that filled the table most when it was fullest
	// ("" when no frame counted the classes).
	Class string `json:"class,omitempty"`
	// Table is the count's peak against the cap over the pass, a point a
	// timeline bucket (bounded whatever the recording's length): what a
	// picture of the two sides draws.
	Table []TablePoint `json:"-"`
	// values are the figures' values by key; a missing key was not read.
	values map[string]float64
	kinds  []verdict.Kind
}

// PassOf reads a finished incident as one pass, named source.
func PassOf(source string, in *incident.Incident) Pass {
	p := Pass{Source: source, Host: in.Host, From: in.From, To: in.To, Samples: in.Samples,
		Began: incident.KnobsOf(in.Overall.First), Ended: incident.KnobsOf(in.End), values: map[string]float64{}}
	for _, f := range figures {
		// a value no arithmetic can judge (a recording's counters can
		// be anything) is not a reading: unread, never 0
		if v, ok := f.get(in); ok && !math.IsNaN(v) && !math.IsInf(v, 0) {
			p.values[f.Key] = v
		}
	}
	for _, k := range in.HeldKinds() {
		p.kinds = append(p.kinds, k)
		p.values[heldFigure(k).Key] = in.Held[k].Seconds()
	}
	for _, b := range in.Timeline.Buckets() {
		p.Table = append(p.Table, TablePoint{Since: b.To.Sub(in.From), Peak: b.Peak, Cap: b.Cap, Gap: b.Gap})
	}
	if top, ok := in.PeakFill.Top(); ok {
		p.Class = top.Class.String()
	}
	return p
}

// Value is figure key's value in p; ok is false when p did not read it.
func (p Pass) Value(key string) (v float64, ok bool) {
	v, ok = p.values[key]
	return v, ok
}

// Dropped reports whether the pass dropped a packet (ok false: its drops
// were not read).
func (p Pass) Dropped() (dropped, ok bool) {
	v, ok := p.values["drops"]
	return v > 0, ok
}

// Span is the pass's length.
func (p Pass) Span() time.Duration { return p.To.Sub(p.From) }

// TablePoint is the table in one stretch of a pass: the count's peak and
// the cap, Since the pass began; Gap marks a stretch after the stream was
// down.
type TablePoint struct {
	Since     time.Duration
	Peak, Cap uint64
	Gap       bool
}
