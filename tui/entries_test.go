package tui

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/entry"
	"github.com/tablefull/tablefull/model/verdict"
)

// fakeTable is a table of entries for the panel, and the asks it had.
type fakeTable struct {
	flows []model.Flow
	asked []string // "filter|sort|desc"
}

func (f *fakeTable) list(filter entry.Filter, sort string, desc bool, limit int) (*entry.List, error) {
	f.asked = append(f.asked, filter.String()+"|"+sort+"|"+map[bool]string{true: "desc", false: "asc"}[desc])
	l, err := entry.NewList(filter, sort, desc, limit)
	if err != nil {
		return nil, err
	}
	for _, e := range f.flows {
		l.Add(e)
	}
	return l, nil
}

// TestEntriesPanel: E lists the table's entries as rows (a DNAT's target
// visible), s sorts by the next column and S reverses, / takes a filter
// in conntrack's words and lists again with it, a filter conntrack would
// not take is said and not applied, esc closes; a feed that cannot list
// says so.
func TestEntriesPanel(t *testing.T) {
	tbl := &fakeTable{flows: []model.Flow{
		{Proto: 17, Src: netip.MustParseAddr("10.0.0.5"), Dst: netip.MustParseAddr("10.96.0.10"), SrcPort: 40000, DstPort: 53, TCPState: -1, Timeout: 25,
			ReplySrc: netip.MustParseAddr("10.80.0.2"), ReplySrcPort: 53, ReplyDst: netip.MustParseAddr("10.0.0.5"), ReplyDstPort: 40000},
		{Proto: 6, Src: netip.MustParseAddr("10.0.0.5"), Dst: netip.MustParseAddr("10.0.0.9"), SrcPort: 40001, DstPort: 80, TCPState: 7, Timeout: 110, Status: model.StatusAssured | model.StatusSeenReply,
			ReplySrc: netip.MustParseAddr("10.0.0.9"), ReplySrcPort: 80, ReplyDst: netip.MustParseAddr("10.0.0.5"), ReplyDstPort: 40001},
	}}
	a := New(newScriptFeed(t, nil), Options{Interval: time.Second, Entries: tbl.list})
	a.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	for _, s := range incident(5) {
		a.Update(sampleMsg{s: s})
	}
	runAll(a, typed("E"))
	view := ansi.Strip(a.View())
	for _, want := range []string{"entries 2 match no filter", "by timeout", "udp  -", "10.0.0.5:40000 → 10.96.0.10:53  DNAT to 10.80.0.2:53", "TIME_WAIT", "assured"} {
		if !strings.Contains(view, want) {
			t.Errorf("the panel lacks %q:\n%s", want, view)
		}
	}
	runAll(a, typed("s"))
	runAll(a, typed("S"))
	if got := tbl.asked[len(tbl.asked)-1]; got != "|proto|desc" {
		t.Errorf("after s and S the listing asked %q, want proto descending", got)
	}
	runAll(a, typed("/"))
	for _, r := range "-p udp" {
		a.Update(typed(string(r)))
	}
	runAll(a, tea.KeyMsg{Type: tea.KeyEnter})
	if got := tbl.asked[len(tbl.asked)-1]; got != "-p udp|proto|desc" {
		t.Errorf("the typed filter asked %q", got)
	}
	if view := ansi.Strip(a.View()); !strings.Contains(view, "entries 1 match -p udp") || strings.Contains(view, "TIME_WAIT") {
		t.Errorf("filtered to udp:\n%s", view)
	}
	runAll(a, typed("/"))
	a.Update(typed(" --dport 99999"))
	runAll(a, tea.KeyMsg{Type: tea.KeyEnter})
	// A refused filter closes the prompt, says why under it and keeps the
	// last good one: the next key is the panel's, not the prompt's.
	view = ansi.Strip(a.View())
	if !strings.Contains(view, "filter refused, kept -p udp: --dport 99999: not a port (1–65535)") || tbl.asked[len(tbl.asked)-1] != "-p udp|proto|desc" {
		t.Errorf("a bad filter: last asked %q:\n%s", tbl.asked[len(tbl.asked)-1], view)
	}
	runAll(a, typed("s"))
	if got := tbl.asked[len(tbl.asked)-1]; got != "-p udp|state|desc" {
		t.Errorf("s after a refused filter asked %q, want the kept filter sorted on", got)
	}
	runAll(a, typed("/")) // opens on the refused words, to be put right
	if view := ansi.Strip(a.View()); !strings.Contains(view, "filter -p udp --dport 99999▏") || strings.Contains(view, "filter refused") {
		t.Errorf("/ after a refusal:\n%s", view)
	}
	a.Update(tea.KeyMsg{Type: tea.KeyEsc}) // leaves the typing
	a.Update(tea.KeyMsg{Type: tea.KeyEsc}) // closes the panel
	if a.panel != panelNone {
		t.Error("esc did not close the entries panel")
	}
	b := feedAll(t, incident(5), 120, 40)
	runAll(b, typed("E"))
	if b.panel == panelEntries || !strings.Contains(b.status.text(), "a live table") {
		t.Errorf("a feed that cannot list: panel %v, status %q", b.panel, b.status.text())
	}
}

// TestEntriesPanelDeletes: D asks before it deletes what the filter
// matches, n deletes nothing, y deletes (never established connections:
// the console passes established false) and says what went; a filter
// that matches established connections, an empty filter and a console
// without a deleter are refused with why.
func TestEntriesPanelDeletes(t *testing.T) {
	tbl := &fakeTable{flows: []model.Flow{
		{Proto: 17, Src: netip.MustParseAddr("10.0.0.5"), Dst: netip.MustParseAddr("10.96.0.10"), SrcPort: 40000, DstPort: 53, TCPState: -1, Timeout: 25},
		{Proto: 6, Src: netip.MustParseAddr("10.0.0.5"), Dst: netip.MustParseAddr("10.0.0.9"), SrcPort: 40001, DstPort: 80, TCPState: 3, Timeout: 400000, Status: model.StatusAssured | model.StatusSeenReply},
	}}
	var asked []string
	del := func(f entry.Filter, established bool) (entry.Deletion, error) {
		asked = append(asked, fmt.Sprintf("%s|%v", f, established))
		return entry.Deletion{Matched: 1, Deleted: 1}, nil
	}
	rec := &fakeRecorder{}
	a := New(newScriptFeed(t, nil), Options{Interval: time.Second, Entries: tbl.list, DeleteEntries: del, Recorder: rec})
	a.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	for _, s := range incident(5) {
		a.Update(sampleMsg{s: s})
	}
	runAll(a, typed("E"))
	runAll(a, typed("D"))
	if a.ents.asking != "" || !strings.Contains(a.status.text(), "empty filter") {
		t.Errorf("D with no filter: asking %q, status %q", a.ents.asking, a.status.text())
	}
	runAll(a, typed("/"))
	a.Update(typed("-p tcp"))
	runAll(a, tea.KeyMsg{Type: tea.KeyEnter})
	runAll(a, typed("D"))
	if a.ents.asking != "" || !strings.Contains(a.status.text(), "established") || !strings.Contains(a.status.text(), "--established") {
		t.Errorf("D over established connections: asking %q, status %q", a.ents.asking, a.status.text())
	}
	runAll(a, typed("/"))
	a.Update(tea.KeyMsg{Type: tea.KeyBackspace})
	a.Update(tea.KeyMsg{Type: tea.KeyBackspace})
	a.Update(tea.KeyMsg{Type: tea.KeyBackspace})
	a.Update(typed("udp"))
	runAll(a, tea.KeyMsg{Type: tea.KeyEnter})
	runAll(a, typed("D"))
	if view := ansi.Strip(a.View()); !strings.Contains(view, "delete what -p udp matches: 1 entry (0 assured, 1 unreplied)? y/n") {
		t.Errorf("D asks nothing:\n%s", view)
	}
	runAll(a, typed("n"))
	if len(asked) != 0 || !strings.Contains(a.status.text(), "nothing deleted") {
		t.Errorf("n: deleter asked %v, status %q", asked, a.status.text())
	}
	runAll(a, typed("D"))
	listings := len(tbl.asked)
	runAll(a, typed("y"))
	if len(asked) != 1 || asked[0] != "-p udp|false" || !strings.Contains(a.status.text(), "deleted 1") || len(tbl.asked) != listings+1 {
		t.Errorf("y: deleter asked %v, status %q, listed again %v", asked, a.status.text(), len(tbl.asked) > listings)
	}
	if want := "-p udp: 1 of 1 (<nil>)"; len(rec.deleted) != 1 || rec.deleted[0] != want {
		t.Errorf("the recording keeps %q, want the one deletion %q (refusals are not deletions)", rec.deleted, want)
	}
	b := New(newScriptFeed(t, nil), Options{Interval: time.Second, Entries: tbl.list})
	b.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	runAll(b, typed("E"))
	runAll(b, typed("D"))
	if !strings.Contains(b.status.text(), "not over this feed") {
		t.Errorf("no deleter: %q", b.status.text())
	}
}

// TestEntriesOpenOnTheVerdictsEntries: under STALE DNAT, E opens on the
// entries the verdict says to drop (its gone target's), ready for D.
func TestEntriesOpenOnTheVerdictsEntries(t *testing.T) {
	tbl := &fakeTable{}
	a := New(newScriptFeed(t, nil), Options{Interval: time.Second, Entries: tbl.list})
	a.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	samples := incident(5)
	samples[4].Census = &model.Census{At: samples[4].Time, Total: 90, StaleDNAT: []model.DNATTarget{{Target: "10.244.1.7:53", Unreplied: 30, Gone: true}}, DNATChecked: true}
	for _, s := range samples {
		a.Update(sampleMsg{s: s})
	}
	if !slices.ContainsFunc(a.frame().Verdicts, func(v verdict.Verdict) bool { return v.Kind == verdict.StaleDNAT }) {
		t.Fatalf("no STALE DNAT to open from: %v", a.frame().Verdicts)
	}
	runAll(a, typed("E"))
	if got := tbl.asked[len(tbl.asked)-1]; got != "-p udp --reply-src 10.244.1.7|timeout|asc" {
		t.Errorf("E under STALE DNAT listed %q", got)
	}
	if !strings.Contains(a.status.text(), "STALE DNAT") {
		t.Errorf("status %q", a.status.text())
	}
}

// TestEntryRowDrawsNoEscapes: an address's zone is any text; a row draws
// it sanitised, whatever reached it.
func TestEntryRowDrawsNoEscapes(t *testing.T) {
	f := model.Flow{Proto: 6, Src: netip.MustParseAddr("fe80::1%\x1b]0;owned\x07"), Dst: netip.MustParseAddr("fe80::2"), SrcPort: 1, DstPort: 80, TCPState: 3}
	if row := entryRow(f); strings.ContainsAny(row, "\x1b\x07") {
		t.Errorf("the row draws raw escapes: %q", row)
	}
}

// TestEntriesHostRefusesFilter: a filter the words take but the host
// refuses (a label its connlabel.conf lacks, known only where the
// entries are) is refused as the prompt refuses one: said whole under the
// prompt at 80 columns, wrapped, and the last good filter kept.
func TestEntriesHostRefusesFilter(t *testing.T) {
	tbl := &fakeTable{flows: []model.Flow{{Proto: 17, Src: netip.MustParseAddr("10.0.0.5"), Dst: netip.MustParseAddr("10.96.0.10"), SrcPort: 40000, DstPort: 53, TCPState: -1, Timeout: 25}}}
	host := func(f entry.Filter, sort string, desc bool, limit int) (*entry.List, error) {
		if len(f.Labels) > 0 {
			return nil, fmt.Errorf("%w: --label: open /etc/xtables/connlabel.conf: no such file or directory (conntrack(8)'s label names)", entry.ErrBadFilter)
		}
		return tbl.list(f, sort, desc, limit)
	}
	a := New(newScriptFeed(t, nil), Options{Interval: time.Second, Entries: host})
	a.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	for _, s := range incident(5) {
		a.Update(sampleMsg{s: s})
	}
	runAll(a, typed("E"))
	runAll(a, typed("/"))
	a.Update(typed("-p udp"))
	runAll(a, tea.KeyMsg{Type: tea.KeyEnter})
	runAll(a, typed("/"))
	a.Update(typed(" -l five"))
	runAll(a, tea.KeyMsg{Type: tea.KeyEnter})
	view := ansi.Strip(a.View())
	flat := strings.Join(strings.Fields(view), " ")
	if !strings.Contains(flat, "filter refused, kept -p udp: --label: open /etc/xtables/connlabel.conf: no such file or directory (conntrack(8)'s label names)") ||
		!strings.Contains(view, "entries 1 match -p udp") {
		t.Errorf("a filter the host refused:\n%s", view)
	}
	runAll(a, typed("s"))
	if got := tbl.asked[len(tbl.asked)-1]; got != "-p udp|proto|asc" {
		t.Errorf("s after the host's refusal asked %q, want the kept filter", got)
	}
	runAll(a, typed("/"))
	if view := ansi.Strip(a.View()); !strings.Contains(view, "filter -p udp -l five▏") {
		t.Errorf("/ after the host's refusal opens on:\n%s", view)
	}
}
