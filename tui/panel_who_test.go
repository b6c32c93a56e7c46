package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/tui/styles"
)

// TestWhoAndOwnersLines: the probes' owners, their lifetimes, the
// finding and whose packets were dropped are shown with every name
// escaped; probes that could not load say why; the census's owners say
// what has no socket here.
func TestWhoAndOwnersLines(t *testing.T) {
	st := styles.DefaultStyles()
	churn := model.Owner{Comm: "duck\x1b[2Jdb", PID: 4242, Group: "ingest.service", Kind: "unit"}
	w := &model.Who{Conns: []model.ConnFlow{{Owner: churn, Dest: "10.5.5.14:3900", Opened: 3000, Closed: 2990,
		Life: [model.LifeBuckets]uint32{0, 2990}}}, Drops: []model.DropFlow{{Owner: model.Owner{Group: "ingest.service", Kind: "unit"},
		Src: "10.0.0.1", Dest: "10.5.5.14:3900", Proto: 6, N: 540}, {Src: "192.0.2.7", Dest: "10.0.0.1:80", Proto: 6, N: 3}}}
	got := ansi.Strip(strings.Join(whoLines(st, w, 30, 200), "\n"))
	for _, want := range []string{`new conns by owner "duck\x1b[2Jdb" (pid 4242, ingest.service) 100/s → 10.5.5.14:3900 life <2 ms one per request`,
		"drops by owner ingest.service 540 → 10.5.5.14:3900", "from 192.0.2.7 3 → 10.0.0.1:80"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	if strings.Contains(got, "\x1b") {
		t.Errorf("a raw escape reached the screen: %q", got)
	}
	refused := ansi.Strip(strings.Join(whoLines(st, &model.Who{Note: "eBPF refused (needs CAP_BPF)"}, 0, 200), ""))
	if !strings.Contains(refused, "eBPF refused (needs CAP_BPF)") {
		t.Errorf("refused probes: %q", refused)
	}
	if whoLines(st, nil, 0, 200) != nil {
		t.Error("probes never asked for still drew a line")
	}
	o := ansi.Strip(ownersLine(st, &model.Owners{Top: []model.OwnerCount{{Owner: churn, N: 40, Peer: "10.5.5.14:3900", PeerN: 40}},
		Unowned: model.ClassCounts{model.ClassTCPDone: 3000}}))
	if !strings.Contains(o, `"duck\x1b[2Jdb" (pid 4242, ingest.service) 40 → 10.5.5.14:3900 (40)`) || !strings.Contains(o, "3,000 tcp-closed with no socket here") {
		t.Errorf("owners line %q", o)
	}
}
