package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/tally"
)

var holds = model.ClassCounts{120, 120, 432000, 30, 120, 30, 600}

// counted gives the incident's samples ctnetlink's counts: newPS new
// entries a second of protocol p, each ending as class end, tops for the
// interval.
func counted(samples []model.Sample, p model.Proto, end model.Class, newPS uint64, top string) []model.Sample {
	out := append([]model.Sample(nil), samples...)
	for i := range out {
		s := &out[i]
		s.Conntrack.Holds = holds
		s.Entries = model.Entries{Source: model.EntriesEvents, Epoch: 1,
			TopDests: []tally.Count{{Key: top, N: int(newPS)}}, TopSources: []tally.Count{{Key: "10.0.0.7", N: int(newPS)}}}
		s.Entries.New[p] = newPS * uint64(i)
		s.Entries.Ended[end] = newPS * uint64(i)
	}
	return out
}

// TestClassScreens: the incidents that are not the write-up's read true
// (goldens; go test ./tui -update).
func TestClassScreens(t *testing.T) {
	// glibc's resolver against dnsmasq, the table capped at 400: every
	// entry udp, held 30 s; 700 lookups a second get through, 30,000
	// packets a second are dropped.
	dns := counted(incident(21), model.ProtoUDP, model.ClassUDPSingle, 700, "udp/53")
	for i := range dns {
		c := &dns[i].Conntrack
		c.Max, c.Count, c.Peak = 400, min(c.Count/10, 400), min(c.Peak/10, 400)
		if c.Count >= 390 {
			c.Count, c.Peak = 400, 400
		}
		dns[i].TCP.SynRetrans, dns[i].TCP.PassiveOpens = 0, 100
	}
	// A new connection per request (redis-benchmark -k 0), the console
	// opened during the pin: only the ceiling gets in, the refused SYNs
	// say the demand.
	redis := counted(incident(21)[10:], model.ProtoTCP, model.ClassTCPDone, 4, "tcp/6379")
	for i := range redis {
		c := &redis[i].Conntrack
		c.Max, c.Count, c.Peak = 500, 500, 500
		redis[i].TCP.SynRetrans = uint64(700 * i)
	}
	// Four loopback clients with room to spare: 7,300 connections a
	// second (as many active as passive opens), the count rising slowly
	// as loopback reuses tuples.
	loopback := counted(incident(5), model.ProtoTCP, model.ClassTCPDone, 7300, "tcp/18080")
	for i := range loopback {
		loopback[i].Conntrack.Count = 525 + 240*uint64(i)
		loopback[i].Conntrack.Peak = loopback[i].Conntrack.Count
		loopback[i].Conntrack.Max = 262144
		loopback[i].TCP.ActiveOpens, loopback[i].TCP.PassiveOpens = 7300*uint64(i), 7300*uint64(i)
	}
	scenarios := map[string]struct {
		samples []model.Sample
		says    []string
	}{
		"dns":      {dns, []string{"400 of 400 entries: ~400 udp/53, 700/s before the pin × 30 s", "admits 700 new/s (pinned)", "ceiling 13 new/s (400 ÷ 30 s UDP hold)", "hold 30 s udp"}},
		"redis":    {redis, []string{"500 of 500 entries: ~480 tcp/6379", "demand ≥ 104 new/s", "ceiling 4.2 new/s (500 ÷ 120 s TIME_WAIT hold)"}},
		"loopback": {loopback, []string{"observed 7,300 new/s"}},
	}
	for name, sc := range scenarios {
		for _, size := range [][2]int{{80, 24}, {200, 50}} {
			t.Run(fmt.Sprintf("%s/%dx%d", name, size[0], size[1]), func(t *testing.T) {
				view := feedAll(t, sc.samples, size[0], size[1]).View()
				checkSize(t, view, size[0], size[1])
				if size[0] == 200 {
					flat := strings.Join(strings.Fields(view), " ")
					for _, want := range sc.says {
						if !strings.Contains(flat, want) {
							t.Errorf("the screen does not say %q:\n%s", want, view)
						}
					}
				}
				golden.RequireEqual(t, []byte(view))
			})
		}
	}
}
