package report

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/tablefull/tablefull/model/compare"
)

// Rereader opens the recording again from its start: the report reads it
// once for its story, and again for each span a comparison of its own fix
// sets side by side.
type Rereader func() (io.ReadCloser, error)

// FixComparison is a recording that holds its own fix compared as
// tablefull compare compares two spans of it: before its first knob
// change against after its last, one pass a side.
type FixComparison struct {
	compare.Comparison
	// Before and After are the spans, as compare's FILE@FROM..TO takes
	// them.
	Before, After string
}

// fixComparison compares the spans before the incident's first knob
// change and after its last (nil when it changed none, or a span holds
// no sample).
func (r *Report) fixComparison(reread Rereader) (*FixComparison, error) {
	in := r.Incident
	if len(in.Changes) == 0 || reread == nil {
		return nil, nil
	}
	first, last := in.Changes[0].At, in.Changes[len(in.Changes)-1].At
	// A change is at the middle of the interval it fell in; the sample
	// that first read it counts that interval, which is neither side's.
	spans := [2][2]time.Time{{r.from, first}, {last.Add(in.Interval/2 + time.Millisecond), r.to}}
	var passes [2]compare.Pass
	var names [2]string
	for i, sp := range spans {
		names[i] = spanSpec(sp[0], sp[1])
		f, err := reread()
		if err != nil {
			return nil, fmt.Errorf("read the recording again: %w", err)
		}
		rep, err := Read(f, Options{From: at(sp[0]), To: at(sp[1])})
		f.Close()
		if errors.Is(err, ErrNoSamples) {
			return nil, nil // a change at the first or the last sample: one side is empty
		}
		if err != nil {
			return nil, err
		}
		passes[i] = compare.PassOf(r.Source+names[i], rep.Incident)
	}
	return &FixComparison{Comparison: compare.Compare(passes[:1], passes[1:]), Before: names[0], After: names[1]}, nil
}

// at is t as a When (the zero time: unset).
func at(t time.Time) When {
	if t.IsZero() {
		return When{}
	}
	return When{at: t, kind: 1}
}

// spanSpec is compare's @FROM..TO for the span from..to.
func spanSpec(from, to time.Time) string {
	s := func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.UTC().Format(time.RFC3339Nano)
	}
	return "@" + s(from) + ".." + s(to)
}

// fix is the section comparing the recording before its fix and after
// it, as tablefull compare does (nil without one).
func (t narrator) fix(fc *FixComparison) *section {
	if fc == nil {
		return nil
	}
	p := pageOf(fc.Comparison)
	sec := section{Title: "Before and after the fix"}
	first, last := t.in.Changes[0].At, t.in.Changes[len(t.in.Changes)-1].At
	when := "its knob change at " + t.at(first) + " against after it"
	if !last.Equal(first) {
		when = "its first knob change, at " + t.at(first) + ", against after its last, at " + t.at(last)
	}
	sec.Paras = append(sec.Paras, "The recording before "+when+", as tablefull compare sets two recordings side by side. One pass a side: no change is told from noise here; record more passes of each and compare them with --passes.")
	sec.Paras = append(sec.Paras, p.said...)
	sec.Tables = []table{{Head: p.head, Rows: p.rows, Note: "The same as: tablefull compare FILE" + fc.Before + " FILE" + fc.After}}
	return &sec
}
