package tui

import (
	"fmt"
	"time"

	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/story"
	"github.com/tablefull/tablefull/model/tuning"
	"github.com/tablefull/tablefull/model/units"
	"github.com/tablefull/tablefull/tui/styles"
)

// wideTune is the width from which the tuning panel puts a proposal's
// arithmetic on the knob's own row.
const wideTune = 150

// View renders the panel in rows lines of width cells: every knob with
// its current and proposed value and why, the memory cost, the last
// results, the before/after comparison over history() once something was
// applied, and the guided loop. Narrower than wideTune, a proposal's
// arithmetic takes a line of its own and the keys lose their common
// prefix.
func (t *tunePanel) View(st *styles.Styles, rows, width int, history func() []diagnose.Frame) []string {
	if !t.loaded {
		lines := []string{st.Dim.Render("reading the knobs…")}
		if t.message != "" {
			lines = append(lines, st.Warn.Render(foreign(t.message)))
		}
		return lines
	}
	lines, quiet := t.knobRows(st, width)
	if t.plan.Empty() && t.plan.Refusal == "" {
		for _, l := range wrapN(foreign(t.plan.Nothing())+" (enter on a knob sets a value of your own)", width, 4) {
			lines = append(lines, st.OK.Render(l))
		}
	}
	if !t.appliedAt.IsZero() {
		lines = append(lines, beforeAfterLine(st, history(), t.appliedAt))
	}
	// The loop, what was just said and the keys stay on screen; the
	// rows above give way when the panel is short, quiet knobs before
	// the plan's notes.
	tail := t.tailLines(st, width)
	notes := t.noteLines(st, width)
	for over := len(lines) + len(notes) + len(tail) - rows; over > 0 && len(quiet) > 0; over-- {
		i := quiet[len(quiet)-1]
		quiet = quiet[:len(quiet)-1]
		lines = append(lines[:i], lines[i+1:]...)
	}
	if len(lines)+len(tail) > rows {
		lines = lines[:max(0, rows-len(tail))]
	}
	lines = append(lines, notes[:min(len(notes), max(0, rows-len(lines)-len(tail)))]...)
	return append(lines, tail...)
}

// knobRows is a row for each knob: its value, what the plan proposes
// and why, and what an apply verified; quiet are the rows with nothing
// to say, the first to give way.
func (t *tunePanel) knobRows(st *styles.Styles, width int) (lines []string, quiet []int) {
	proposed := map[string]tuning.Change{}
	for _, c := range t.plan.Changes {
		proposed[c.Key] = c
	}
	fromHost := map[string]bool{}
	for _, c := range t.plan.FromHost {
		proposed[c.Key], fromHost[c.Key] = c, true
	}
	verified := map[string]knob.Result{}
	for _, r := range t.results {
		verified[r.Key] = r
	}
	narrow := width < wideTune
	for i, k := range tuning.Knobs {
		cur, ok := t.knobs.Current[k.Key]
		if !ok {
			cur = "?"
		}
		cur = foreign(cur)
		mark := "  "
		if i == t.sel {
			mark = st.Title.Render("▸ ")
		}
		line := mark + fmt.Sprintf("%-48s %12s", k.Key, cur)
		if narrow {
			line = mark + fmt.Sprintf("%-34s %12s", knob.Name(k.Key), cur)
		}
		c, isProposed := proposed[k.Key]
		if isProposed {
			line += " → " + st.Warn.Render(fmt.Sprintf("%-12s", foreign(c.Proposed)))
			if fromHost[k.Key] {
				line += st.Dim.Render(" (on the host)")
			}
			if !narrow {
				line += " " + st.Dim.Render(foreign(c.Why.Text()))
			}
		}
		r, isVerified := verified[k.Key]
		switch {
		case isVerified && !isProposed && r.Verified: // a new proposal is not what was verified
			line += " " + st.OK.Render("verified")
		case isVerified && !isProposed:
			line += " " + st.Crit.Render("NOT VERIFIED ("+foreign(r.After)+")")
		case !isProposed && !isVerified && i != t.sel:
			quiet = append(quiet, len(lines))
		}
		lines = append(lines, line)
		if isProposed && narrow {
			lines = append(lines, st.Dim.Render("    "+foreign(c.Why.Text())))
		}
	}
	return lines, quiet
}

// beforeAfterLine compares the table before and after an apply at at.
func beforeAfterLine(st *styles.Styles, history []diagnose.Frame, at time.Time) string {
	before, after := story.BeforeAfter(history, at, story.CompareSpan)
	span := after.To.Sub(after.From)
	return st.Label.Render(fmt.Sprintf("before → after (%s each) ", units.Dur(span))) + fmt.Sprintf(
		"drops/s %s → %s  new conns/s %s → %s  pinned %s → %s  SYN retrans/s %s → %s  listen overflows/s %s → %s",
		units.Num(before.DropsPS), units.Num(after.DropsPS), units.Num(before.NewConnsPS), units.Num(after.NewConnsPS),
		units.Dur(before.Pinned), units.Dur(after.Pinned), units.Num(before.SynRetransPS), units.Num(after.SynRetransPS),
		units.Num(before.ListenOverflowsPS), units.Num(after.ListenOverflowsPS))
}

// tailLines stay on screen whatever the panel's height: the memory the
// plan costs, the edit line, the loop, what was just said and the keys.
func (t *tunePanel) tailLines(st *styles.Styles, width int) []string {
	c := t.plan.Cost
	assumed := ""
	if c.EntryBytesAssumed {
		assumed = fmt.Sprintf(" (slab unreadable: %d B assumed)", tuning.FallbackEntryBytes)
	}
	tail := []string{st.Label.Render("memory ") + severityStyle(st, c.Level()).Render(fmt.Sprintf("%.1f MiB, %.1f %% of RAM", c.MiB(), c.PctOfRAM)) +
		st.Dim.Render(fmt.Sprintf(" = %s entries × %d B + %s buckets × 8 B%s", units.Int(c.Entries), c.EntryBytes, units.Int(c.Buckets), assumed))}
	if worst := c.WorstCase(); worst != "" {
		tail = append(tail, st.Dim.Render(worst))
	}
	if t.editing {
		tail = append(tail, t.input.View(), st.Dim.Render(editHint))
	}
	tail = append(tail, t.loopLines(st, width)...)
	msg := t.message
	if msg == "" {
		msg = t.knobs.Note
	}
	if msg != "" {
		for _, l := range wrapN(foreign(msg), width, 3) {
			tail = append(tail, st.Warn.Render(l))
		}
	}
	if _, recorded := t.tuner.(recordedTuner); recorded { // a replay writes nothing: no keys that would
		return append(tail, st.Dim.Render("read-only: the recorded moment's plan (tablefull tune applies it on its host) · ↑/↓ knob · esc close"))
	}
	return append(tail, st.Dim.Render("↑/↓ knob · enter edit · a apply · w persist · u undo · esc close"))
}
