package tui

import (
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/entry"
)

// fakeFollow is a follow whose events a test hands it.
type fakeFollow struct {
	mu     sync.Mutex
	fl     *entry.Followed
	lost   uint64
	closed bool
}

func (f *fakeFollow) Read() (entry.Follow, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.fl.Follow(f.lost), false
}

func (f *fakeFollow) Close() { f.mu.Lock(); f.closed = true; f.mu.Unlock() }

// TestEntriesFollow: f in the entries panel follows its filter: the
// events newest first, made and ended told apart, the counts, and the
// events lost when the kernel's buffer overflowed; a new filter follows
// anew (the old follow closed), f again stops, and closing the panel
// ends a follow.
func TestEntriesFollow(t *testing.T) {
	var started []*fakeFollow
	var filters []string
	follower := func(f entry.Filter) (entry.Following, error) {
		ff := &fakeFollow{fl: entry.NewFollowed(f, time.Date(2026, 12, 3, 22, 0, 0, 0, time.UTC))}
		started, filters = append(started, ff), append(filters, f.String())
		return ff, nil
	}
	tbl := &fakeTable{}
	// the feed holds samples to spare: a sample taken in asks for the next
	a := New(newScriptFeed(t, incident(400)), Options{Interval: time.Second, Entries: tbl.list, FollowEntries: follower})
	a.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	samples := incident(6)
	for _, s := range samples[:5] {
		a.Update(sampleMsg{s: s})
	}
	runAll(a, typed("E"))
	runAll(a, typed("f"))
	if len(started) != 1 || filters[0] != "" {
		t.Fatalf("f started %d follows, filters %q", len(started), filters)
	}
	dns := model.Flow{Proto: 17, Src: netip.MustParseAddr("10.0.0.5"), Dst: netip.MustParseAddr("10.96.0.10"), SrcPort: 40000, DstPort: 53, TCPState: -1, Timeout: 30}
	web := model.Flow{Proto: 6, Src: netip.MustParseAddr("10.0.0.5"), Dst: netip.MustParseAddr("10.0.0.9"), SrcPort: 40001, DstPort: 80, TCPState: 1, Timeout: 120}
	at := time.Date(2026, 12, 3, 22, 0, 1, 0, time.UTC)
	started[0].fl.Add(entry.Event{At: at, Flow: dns})
	started[0].fl.Add(entry.Event{At: at.Add(time.Second), Gone: true, Flow: web})
	started[0].lost = 3
	started[0].fl.Events = 2
	runAll(a, sampleMsg{s: samples[5]})
	view := ansi.Strip(a.View())
	for _, want := range []string{"following every entry since 22:00:00 · 1 new · 1 ended · 3 lost (the kernel's event buffer overflowed)",
		"22:00:02 − tcp  SYN_SENT", "22:00:01 + udp  -", "entries made before a listener joined end unreported (nf_conntrack_events 2"} {
		if !strings.Contains(view, want) {
			t.Errorf("the follow lacks %q:\n%s", want, view)
		}
	}
	if strings.Index(view, "22:00:02 −") > strings.Index(view, "22:00:01 +") {
		t.Errorf("the newest event is not first:\n%s", view)
	}
	runAll(a, typed("/"))
	for _, r := range "-p udp" {
		a.Update(typed(string(r)))
	}
	runAll(a, tea.KeyMsg{Type: tea.KeyEnter})
	if len(started) != 2 || filters[1] != "-p udp" || !started[0].closed {
		t.Fatalf("a new filter: %d follows %q, the first closed %v", len(started), filters, started[0].closed)
	}
	if view := ansi.Strip(a.View()); !strings.Contains(view, "following -p udp") || strings.Contains(view, "SYN_SENT") {
		t.Errorf("the new follow shows another's events:\n%s", view)
	}
	runAll(a, typed("f"))
	if !started[1].closed || strings.Contains(ansi.Strip(a.View()), "· f stops") {
		t.Errorf("f again did not stop the follow (closed %v):\n%s", started[1].closed, ansi.Strip(a.View()))
	}
	runAll(a, typed("f"))
	runAll(a, tea.KeyMsg{Type: tea.KeyEsc})
	if len(started) != 3 || !started[2].closed {
		t.Errorf("esc left the follow running (%d started)", len(started))
	}
	b := New(newScriptFeed(t, nil), Options{Interval: time.Second, Entries: tbl.list})
	b.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	runAll(b, typed("E"))
	runAll(b, typed("f"))
	if !strings.Contains(b.status.text(), "not over this feed") {
		t.Errorf("a feed that cannot follow: %q", b.status.text())
	}
}
