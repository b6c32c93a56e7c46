package tui

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/fleet"
	"github.com/tablefull/tablefull/model/verdict"
)

// fakeFleet is an engine over rows: it narrows them by a word of their
// instance or labels, counts the totals, ranks them and answers a page;
// or it fails with err. views are the questions it was asked.
type fakeFleet struct {
	rows  []fleet.Row
	err   error
	views []fleet.View
	// unscored are the instances the totals say serve no score
	unscored int
	// recorded is when the engine's rules last evaluated the totals
	// (zero: no rules)
	recorded time.Time
}

func (f *fakeFleet) Fleet(_ context.Context, _ time.Time, v fleet.View) (fleet.Page, error) {
	f.views = append(f.views, v)
	if f.err != nil {
		return fleet.Page{}, f.err
	}
	if strings.HasPrefix(v.Narrow, "bad") {
		return fleet.Page{}, errors.New("bad selector")
	}
	var kept []fleet.Row
	t := fleet.Totals{Kinds: map[verdict.Kind]int{}}
	for _, r := range f.rows {
		if !strings.Contains(r.Instance+" "+r.Labels, v.Narrow) {
			continue
		}
		kept = append(kept, r)
		t.Hosts++
		t.Kinds[r.Verdict()]++ // as the engine counts: each host by its worst
		t.Firing += len(r.Alerts)
		if r.Stale {
			t.Stale++
		}
		if r.DropsPS > 0 {
			t.Dropping++
		}
		if r.HasTable && r.Count >= r.Limit {
			t.Pinned++
		}
	}
	fleet.Sort(kept)
	t.Unscored = f.unscored
	page := fleet.Page{Totals: t, Offset: v.Offset, Recorded: f.recorded}
	if v.Offset < len(kept) {
		page.Rows = kept[v.Offset:min(len(kept), v.Offset+v.Limit)]
	}
	return page, nil
}
func (f *fakeFleet) History(_ context.Context, inst string, end time.Time, _, _ time.Duration) (model.Host, []model.Sample, error) {
	return model.Host{Name: inst}, incident(21), nil
}
func (f *fakeFleet) Where() string { return "http://prom:9090" }

// bigFleet is n instances, a few of them in trouble, one with a hostile
// instance label.
func bigFleet(n int) []fleet.Row {
	rows := make([]fleet.Row, n)
	for i := range rows {
		rows[i] = fleet.Row{Instance: fmt.Sprintf("node-%04d:9874", i), HasTable: true, Count: uint64(i), Limit: 262144, Peak: uint64(i)}
	}
	rows[7].Kinds, rows[7].Count, rows[7].DropsPS = []verdict.Kind{verdict.TableFull}, 262144, 540
	rows[42].Kinds = []verdict.Kind{verdict.NearCap}
	rows[99].Stale = true
	rows[500].Instance = evil
	return rows
}

// fleetAt builds the view at w×h with the source's first answer in.
func fleetAt(src FleetSource, w, h int) *Fleet {
	f := NewFleet(src, FleetOptions{Interval: time.Minute})
	tick := f.Init()
	_, ask := f.Update(tea.WindowSizeMsg{Width: w, Height: h})
	f.Update(ask())
	if _, again := f.Update(tick()); again != nil { // the size asked first: the tick asks nothing
		panic("the first tick asked again after the size did")
	}
	return f
}

// TestFleetView: a thousand instances render most severe first within the
// screen, inert whatever their labels say, in well under 200 ms; / filters;
// ↓ moves; enter drills into the history and esc comes back.
func TestFleetView(t *testing.T) {
	src := &fakeFleet{rows: bigFleet(1000)}
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		f := fleetAt(src, size[0], size[1])
		start := time.Now()
		screen := f.View()
		if took := time.Since(start); took > 200*time.Millisecond {
			t.Errorf("%dx%d: a fleet of 1,000 rendered in %s", size[0], size[1], took)
		}
		checkScreen(t, screen, size[0])
		if got := len(strings.Split(screen, "\n")); got != size[1] {
			t.Errorf("%dx%d: %d lines", size[0], size[1], got)
		}
		lines := strings.Split(screen, "\n")
		if !strings.Contains(lines[1], "1,000 hosts · 1 pinned · 1 dropping · 1 TABLE FULL") || !strings.Contains(lines[1], "1 STALE") || !strings.Contains(lines[4], "node-0007") || !strings.Contains(lines[4], "TABLE FULL") {
			t.Errorf("%dx%d: the full instance is not first, or the summary is wrong:\n%s", size[0], size[1], screen)
		}
		if !strings.Contains(screen, "STALE") || !strings.Contains(lines[2], "may drop the scrape itself") {
			t.Errorf("%dx%d: the stale host is not marked with its hint:\n%s", size[0], size[1], screen)
		}
	}
	f := fleetAt(src, 120, 30)
	for _, r := range "/0420" {
		f.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
	asked := len(src.views)
	_, cmd := f.Update(tea.KeyMsg{Type: tea.KeyEnter})
	if len(src.views) != asked {
		t.Errorf("the engine was asked while / was typed")
	}
	f.Update(cmd())
	if len(f.page.Rows) != 1 || !strings.Contains(f.View(), "node-0420") || !strings.Contains(f.View(), "/0420") {
		t.Errorf("narrowed to 0420: %d rows\n%s", len(f.page.Rows), f.View())
	}
	_, cmd = f.Update(tea.KeyMsg{Type: tea.KeyEsc})
	f.Update(cmd())
	f.Update(tea.KeyMsg{Type: tea.KeyDown})
	f.Update(tea.KeyMsg{Type: tea.KeyDown})
	if f.cursor != 2 {
		t.Errorf("cursor %d after two ↓", f.cursor)
	}
	_, cmd = f.Update(tea.KeyMsg{Type: tea.KeyEnter})
	f.Update(cmd())
	if f.detail == nil || !strings.Contains(f.View(), "TABLE FULL") || !strings.Contains(f.View(), "history from Prometheus") {
		t.Fatalf("enter did not open the history:\n%s", f.View())
	}
	f.Update(tea.KeyMsg{Type: tea.KeyEsc})
	if f.detail != nil || !strings.Contains(f.View(), "tablefull fleet") {
		t.Errorf("esc did not come back to the fleet")
	}
}

// TestFleetOutage: Prometheus unreachable keeps the last rows with the
// error on screen, and the next good answer clears it.
func TestFleetOutage(t *testing.T) {
	src := &fakeFleet{rows: bigFleet(600)}
	f := fleetAt(src, 100, 20)
	src.err = errors.New("query http://prom:9090: connection refused \x1b]0;x\x07")
	f.Update(f.fetchCmd()())
	screen := f.View()
	checkScreen(t, screen, 100)
	if !strings.Contains(screen, "connection refused") || !strings.Contains(screen, "node-0007") {
		t.Errorf("during the outage:\n%s", screen)
	}
	// the reason whole, wrapped, however long ("dial tcp: lookup prom on
	// 10.255.255.5…" was cut at 80 columns)
	const lookup = "query http://prom:9090/api/v1/query: Post \"http://prom:9090/api/v1/query\": dial tcp: lookup prom on 10.255.255.53:53: no such host"
	src.err = errors.New(lookup)
	f.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	f.Update(f.fetchCmd()())
	screen = f.View()
	checkScreen(t, screen, 80)
	if got := strings.Join(strings.Fields(screen), " "); !strings.Contains(got, lookup) || strings.Count(screen, "\n") != 23 {
		t.Errorf("at 80×24 the reason is not whole on a screen of 24 rows:\n%s", screen)
	}
	src.err = nil
	f.Update(f.fetchCmd()())
	if strings.Contains(f.View(), "connection refused") {
		t.Errorf("the error stayed after Prometheus came back")
	}
}

// TestFleetDrillDownFast: 6 h of an instance at 15 s (1,440 samples) is
// on screen within a second of Prometheus's answer.
func TestFleetDrillDownFast(t *testing.T) {
	f := fleetAt(&fakeFleet{rows: bigFleet(600)}, 200, 50)
	samples := incident(1440)
	start := time.Now()
	f.Update(historyMsg{host: model.Host{Name: "node-0007:9874"}, samples: samples})
	screen := f.View()
	if took := time.Since(start); took > time.Second {
		t.Errorf("1,440 samples took %s to reach the screen", took)
	}
	if !strings.Contains(screen, "TABLE FULL") {
		t.Errorf("the drill-down:\n%s", screen)
	}
}

// TestFleetLive: s opens the selected instance's live console (what
// --ssh opens), esc comes back and stops its feed.
func TestFleetLive(t *testing.T) {
	var opened string
	stopped := make(chan bool, 1)
	f := NewFleet(&fakeFleet{rows: bigFleet(600)}, FleetOptions{Interval: time.Minute,
		Live: func(instance string) (*App, func(), error) {
			opened = instance
			return New(newScriptFeed(t, incident(5)), Options{Interval: time.Second}), func() { stopped <- true }, nil
		}})
	_, ask := f.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	f.Update(ask())
	f.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'s'}})
	if opened != "node-0007:9874" || f.detail == nil {
		t.Fatalf("s opened %q", opened)
	}
	f.Update(tea.KeyMsg{Type: tea.KeyEsc})
	select {
	case <-stopped:
	case <-time.After(time.Second):
		t.Error("esc did not stop the live feed")
	}
	if f.detail != nil {
		t.Error("esc did not come back to the fleet")
	}
}

func TestHostsText(t *testing.T) {
	for n, want := range map[int]string{0: "0 hosts", 1: "1 host", 20000: "20,000 hosts"} {
		if got := hostsText(n); got != want {
			t.Errorf("%d: %q, want %q", n, got, want)
		}
	}
}

// TestFleetRowSaysWhyInWords: a host whose own table reads fine while a
// namespace's is full says so on its row in words that fit: the
// namespace's name shortened from its middle, "full", the count against
// the cap and its drops (counted in the drops column too); the
// drill-down's header says HISTORY, as the README does.
func TestFleetRowSaysWhyInWords(t *testing.T) {
	name := "netns tablefull-lab-7f3a9c1e-5d2b-4c8e-9a71-0b6d2f8e41c9"
	src := &fakeFleet{rows: []fleet.Row{{Instance: "127.0.0.1:19874", Kinds: []verdict.Kind{verdict.TableFull}, HasTable: true,
		Limit: 500, WorstNS: name, WorstNSCount: 500, NSDropsPS: 80}}}
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		f := fleetAt(src, size[0], size[1])
		row := strings.Split(f.View(), "\n")[4]
		if !strings.Contains(row, "netns ") || !strings.Contains(row, "41c9 full 500 / 500, 80 drops/s") || (size[0] > 120 && !strings.Contains(row, " 80 ")) {
			t.Errorf("%dx%d: the row does not say why in full words:\n%s", size[0], size[1], row)
		}
		if size[0] == 80 && !strings.Contains(row, "…") {
			t.Errorf("80 columns: the name is not shortened from its middle: %s", row)
		}
		_, cmd := f.Update(tea.KeyMsg{Type: tea.KeyEnter})
		f.Update(cmd())
		if head := strings.Split(f.View(), "\n")[0]; !strings.Contains(head, "HISTORY") || strings.Contains(head, "REPLAY") {
			t.Errorf("%dx%d: the drill-down's header: %s", size[0], size[1], head)
		}
	}
}

func TestShortenMiddle(t *testing.T) {
	for _, c := range []struct {
		in   string
		w    int
		want string
	}{
		{"web-7", 10, "web-7"},
		{"tablefull-lab-7f3a9c1e", 11, "table…a9c1e"},
		{"abcdef", 3, "a…f"},
	} {
		if got := shortenMiddle(c.in, c.w); got != c.want {
			t.Errorf("shortenMiddle(%q, %d) = %q, want %q", c.in, c.w, got, c.want)
		}
	}
}

// TestDrillDownFeedEnds: a drill-down's feed, whose samples were all
// given, says it ended when asked (it never blocks a reader).
func TestDrillDownFeedEnds(t *testing.T) {
	done := make(chan error, 1)
	go func() { _, err := staticFeed{}.Next(); done <- err }()
	select {
	case err := <-done:
		if !model.FeedEnded(err) {
			t.Errorf("Next: %v, want the end of the feed", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Next blocks")
	}
}

// TestFleetPages: pgdown asks the engine for the next page of its
// ranking, sized to the screen, and says where it is; pgup comes back;
// an answer to an older question never overwrites the page asked for;
// past the end it goes back to the last page.
func TestFleetPages(t *testing.T) {
	src := &fakeFleet{rows: bigFleet(1000)}
	f := fleetAt(src, 80, 24)
	n := f.listRows()
	if len(src.views) != 1 || src.views[0].Limit != n || src.views[0].Offset != 0 {
		t.Fatalf("at start asked %+v, want once, a page of %d", src.views, n)
	}
	old := f.fetchCmd() // a refresh under way when pgdown is pressed
	_, cmd := f.Update(tea.KeyMsg{Type: tea.KeyPgDown})
	f.Update(cmd())
	f.Update(old())
	if f.page.Offset != n || len(f.page.Rows) != n {
		t.Fatalf("after pgdown: offset %d, %d rows; want %d, %d", f.page.Offset, len(f.page.Rows), n, n)
	}
	if screen := f.View(); !strings.Contains(screen, fmt.Sprintf("worst %d–%d of 1,000", n+1, 2*n)) || strings.Contains(screen, "node-0007") {
		t.Errorf("the second page:\n%s", screen)
	}
	_, cmd = f.Update(tea.KeyMsg{Type: tea.KeyPgUp})
	f.Update(cmd())
	if f.page.Offset != 0 || !strings.Contains(f.View(), "node-0007") {
		t.Errorf("pgup did not come back to the worst: offset %d", f.page.Offset)
	}
	f.view.Offset = 5000 // the fleet shrank under a deep page
	_, cmd = f.Update(f.fetchCmd()())
	if cmd == nil {
		t.Fatal("an empty page past the end asked nothing more")
	}
	f.Update(cmd())
	if f.page.Offset != 1000-n || len(f.page.Rows) != n {
		t.Errorf("past the end: offset %d, %d rows", f.page.Offset, len(f.page.Rows))
	}
}

// TestFleetNarrowRefused: a narrowing the engine refuses is said with
// its words, and the view keeps the last narrowing it took.
func TestFleetNarrowRefused(t *testing.T) {
	src := &fakeFleet{rows: bigFleet(1000)}
	f := fleetAt(src, 120, 30)
	for _, text := range []string{"node-00", "bad=("} {
		f.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'/'}})
		f.filter.SetValue(text)
		_, cmd := f.Update(tea.KeyMsg{Type: tea.KeyEnter})
		f.Update(cmd())
	}
	screen := f.View()
	if !strings.Contains(screen, "/bad=(: bad selector") || f.view.Narrow != "node-00" || f.filter.Value() != "node-00" {
		t.Errorf("refused narrowing: view %+v, filter %q\n%s", f.view, f.filter.Value(), screen)
	}
	f.Update(f.fetchCmd()())
	if v := src.views[len(src.views)-1]; v.Narrow != "node-00" || f.page.Totals.Hosts != 100 {
		t.Errorf("the next refresh asked %+v, %d hosts", v, f.page.Totals.Hosts)
	}
}

// TestFleetUnscored: instances that serve no score are said beside the
// dropping, whose count they are not in; none, nothing is said.
func TestFleetUnscored(t *testing.T) {
	for _, n := range []int{0, 3} {
		screen := fleetAt(&fakeFleet{rows: bigFleet(1000), unscored: n}, 200, 50).View()
		summary := strings.Split(screen, "\n")[1]
		if got, want := strings.Contains(summary, "1 dropping · 3 unscored"), n > 0; got != want {
			t.Errorf("%d unscored: the summary is %q", n, summary)
		}
		if n == 0 && strings.Contains(summary, "unscored") {
			t.Errorf("no instance unscored, and the summary says %q", summary)
		}
	}
}

// TestFleetSaysItsRecordings: a page whose totals and ranking the
// engine's recording rules made says so on the status line, with their
// age; one from the raw queries says nothing of them.
func TestFleetSaysItsRecordings(t *testing.T) {
	src := &fakeFleet{rows: bigFleet(1000)}
	if screen := fleetAt(src, 200, 50).View(); strings.Contains(screen, "recorded") {
		t.Errorf("a page of the raw queries says it was recorded:\n%s", screen)
	}
	src.recorded = time.Now().Add(-25 * time.Second)
	if screen := fleetAt(src, 200, 50).View(); !strings.Contains(screen, "totals recorded 25 s before") {
		t.Errorf("a page of the recordings does not say so with their age:\n%s", screen)
	}
}

// TestFleetStatusSaysFreshnessFirst: on a narrow screen the status line
// says where the page is, the recordings' age and when it was updated
// before the refresh's cost, so that the cost is what the edge cuts; on a
// wide one the cost keeps its place after the page's; with a host
// unanswered on the page its hint comes first.
func TestFleetStatusSaysFreshnessFirst(t *testing.T) {
	rows := bigFleet(1000)
	rows[99].Stale = false // no host unanswered: the status alone
	src := &fakeFleet{rows: rows, recorded: time.Now().Add(-12 * time.Second)}
	screen := fleetAt(src, 80, 24).View()
	if !strings.Contains(screen, "totals recorded 12 s before · updated ") {
		t.Errorf("at 80 columns the status does not say the recordings' age and the update:\n%s", screen)
	}
	rows[3].Stale = true // among the worst: on the first page
	f := fleetAt(src, 200, 50)
	if !f.staleOnPage() {
		t.Fatal("no unanswered host on the page: the test shows nothing")
	}
	screen = f.View()
	if !regexp.MustCompile(regexp.QuoteMeta(staleHint) + ` · worst 1–\d+ of 1,000 · \d+ queries, `).MatchString(screen) {
		t.Errorf("at 200 columns, with a host unanswered, the hint, the page and the cost are not first:\n%s", screen)
	}
}
