package tui

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/tuning"
	"github.com/tablefull/tablefull/model/units"
	"github.com/tablefull/tablefull/model/verdict"
	"github.com/tablefull/tablefull/remote/recording/recordingtest"
	"github.com/tablefull/tablefull/tui/printedtest"
)

// recordings are the incidents the property tests step through: the
// demo, the lab's, and every one recorded here (testdata/incidents: the
// lab's scenarios and the real servers' incidents at max = buckets).
func recordings(t *testing.T) []string { return recordingtest.Incidents(t, "..") }

var (
	entriesOf = regexp.MustCompile(`([0-9,]+) of ([0-9,]+) entries`)
	countOf   = regexp.MustCompile(`count ([0-9,]+) of max ([0-9,]+)`)
	peakOf    = regexp.MustCompile(`peak ([0-9,]+) of max ([0-9,]+)`)
	// refusing are captions that are only true of a table refusing
	// connections, pinned those only true of a full one.
	refusing = regexp.MustCompile(`retransmit|Pinned at|counts the damage`)
	pinned   = regexp.MustCompile(`Pinned at`)
	// dropping are the kinds whose packets the table drops: a caption of
	// refused connections is true under each.
	dropping = map[verdict.Kind]bool{verdict.TableFull: true, verdict.NATPorts: true, verdict.EarlyDropping: true, verdict.InsertClash: true, verdict.ZoneFull: true}
)

// checkArithmetic reports every product in text that does not compute,
// and any product of a zero rate (printedtest.ArithmeticFaults: the rule every
// surface's test asks of its text).
func checkArithmetic(t *testing.T, at, what, text string) {
	t.Helper()
	faults, _ := printedtest.ArithmeticFaults(text)
	for _, f := range faults {
		t.Errorf("%s: %s prints %s", at, what, f)
	}
}

// TestEveryFrameAgreesWithItself: over every frame of every recording, at
// 80×24, 120×35 and 200×50, played with captions and stepped with `.`:
// the verdict's numbers are the frame's count, peak and cap; TABLE FULL
// only while the table is pinned or dropping; a caption that speaks of
// refused connections only under a kind whose packets the table drops,
// of a pin only under TABLE FULL; the count line reads the
// frame's count and cap; the chart names the cap wherever the count
// came near it; and every rate × hold printed, in the verdicts and on
// the screen, computes.
func TestEveryFrameAgreesWithItself(t *testing.T) {
	for _, path := range recordings(t) {
		rec := recordingtest.Read(t, path)
		for _, size := range [][2]int{{80, 24}, {120, 35}, {200, 50}} {
			a := New(newScriptFeed(t, nil), Options{Interval: time.Second, Speed: 1, Captions: true})
			a.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
			for _, s := range rec.Samples {
				a.Update(sampleMsg{s: s})
			}
			a.Update(typed("p"))
			caps := map[uint64]bool{} // every cap the count came near so far
			for i, s := range rec.Samples {
				if i > 0 {
					a.Update(typed("."))
				}
				if c := s.Conntrack; c.Max > 0 && c.Peak >= c.Max/4 {
					caps[c.Max] = true
				}
				checkFrame(t, path, size, a, caps)
			}
		}
	}
}

// checkFrame checks the frame on a's screen against its own numbers.
// caps are the caps the count came near up to this frame: each is on
// the chart, and a change between them marked ▲ in its strip.
func checkFrame(t *testing.T, path string, size [2]int, a *App, caps map[uint64]bool) {
	t.Helper()
	fr := a.frame()
	c := fr.Sample.Conntrack
	at := path + " " + fr.Sample.Time.Format("15:04:05") + " " + sizeName(size)
	v := fr.Verdict()
	same := func(what string, re *regexp.Regexp, n, m uint64) {
		for _, g := range re.FindAllStringSubmatch(v.Text(), -1) {
			if g[1] != units.Int(n) || g[2] != units.Int(m) {
				t.Errorf("%s: the verdict's %q is not the frame's %s %s of %s: %s", at, g[0], what, units.Int(n), units.Int(m), v)
			}
		}
	}
	if !strings.HasPrefix(v.Text(), "in ") { // another namespace's table is named with its own numbers
		same("count", entriesOf, c.Count, c.Max)
		same("count", countOf, c.Count, c.Max)
		same("peak", peakOf, c.Peak, c.Max)
	}
	if v.Kind == verdict.TableFull && !strings.HasPrefix(v.Text(), "in ") && !fr.Pinned && fr.Rates.Drops() == 0 {
		t.Errorf("%s: TABLE FULL neither pinned nor dropping: %s", at, v)
	}
	if line := a.captionLine(); refusing.MatchString(line) && !dropping[v.Kind] || pinned.MatchString(line) && v.Kind != verdict.TableFull {
		t.Errorf("%s: caption %q under %s", at, line, v.Kind)
	}
	for _, f := range fr.Faults() { // the frame's facts against the frame
		t.Errorf("%s: %s", at, f)
	}
	for _, c := range (tuning.Diagnosis{Now: fr}).Contradictions() { // the rules, said once in model
		t.Errorf("%s: %s", at, c)
	}
	view := ansi.Strip(a.View())
	checkArithmetic(t, at, "the screen", view)
	if c.Status != model.TableTracked || c.Max == 0 {
		return
	}
	if want := "count " + units.Int(c.Count) + " / " + units.Int(c.Max); !strings.Contains(view, want) {
		t.Errorf("%s: the count line does not read %q:\n%s", at, want, view)
	}
	for capV := range caps {
		if !chartNamesCap(view, capV) && !axisShows(view, capV) && !episodeNames(view, capV) {
			t.Errorf("%s: the count came near the cap %s and the chart does not show it:\n%s", at, units.Int(capV), view)
		}
	}
	if len(caps) > 1 && !strings.Contains(view, "▲") {
		t.Errorf("%s: the cap changed and the chart's strip does not mark it:\n%s", at, view)
	}
}

func sizeName(s [2]int) string { return units.Int(uint64(s[0])) + "×" + units.Int(uint64(s[1])) }

// axisLabel is a Y-axis label of the chart: "4096├", " 2.1k│", "4.1k───"
// (the cap's line drawn on its row), "8.2k" alone at the top.
var axisLabel = regexp.MustCompile(`(?m)^ *([0-9.]+)([kM]?)(?: *[├│└─┼╶╴]| *$)`)

// episodeNames reports whether the episode line names cap v among the
// caps it was pinned at ("pinned 15 s at 4,096 → 8,192"): a chart too
// short to draw every cap still has them said.
func episodeNames(view string, v uint64) bool {
	for _, line := range strings.Split(view, "\n") {
		if _, caps, ok := strings.Cut(line, " at "); ok && strings.HasPrefix(strings.TrimSpace(line), "episode") {
			for _, c := range strings.Fields(caps) {
				if c == units.Int(v) {
					return true
				}
			}
		}
	}
	return false
}

// chartNamesCap reports whether the chart names cap v in its plot ("max
// 4,096" or "↑ max 16,384" where no line draws it): not the words of a
// verdict or a panel ("of max 4,096", "nf_conntrack_max 4,096").
func chartNamesCap(view string, v uint64) bool {
	label := "max " + units.Int(v)
	for rest := view; ; {
		i := strings.Index(rest, label)
		if i < 0 {
			return false
		}
		before, after := rest[:i], rest[i+len(label):]
		if !strings.HasSuffix(before, "of ") && !strings.HasSuffix(before, "_") && (after == "" || !unicode.IsDigit(rune(after[0])) && after[0] != ',') {
			return true
		}
		rest = after
	}
}

// axisShows reports whether a Y-axis label reads v: exactly, or as the
// compact "16k" or "4.1k" within half its last printed digit.
func axisShows(view string, v uint64) bool {
	for _, g := range axisLabel.FindAllStringSubmatch(view, -1) {
		n, err := strconv.ParseFloat(g[1], 64)
		if err != nil {
			continue
		}
		scale := map[string]float64{"": 1, "k": 1e3, "M": 1e6}[g[2]]
		digit := scale
		if _, frac, ok := strings.Cut(g[1], "."); ok {
			digit /= math.Pow(10, float64(len(frac)))
		}
		if math.Abs(n*scale-float64(v)) <= digit/2+1e-9 {
			return true
		}
	}
	return false
}
