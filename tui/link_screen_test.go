package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/tablefull/tablefull/model"
)

// downErr is a stream that went down, as agent.Process reports it.
type downErr string

func (e downErr) Error() string    { return string(e) }
func (downErr) Disconnected() bool { return true }

// sshDown is ssh's own words when the host cannot be resolved, whole.
const sshDown = "disconnected: ssh: Could not resolve hostname nosuchhost.example.internal: Name or service not known (no stream began); attempt 3 failed, the next in 4s"

// noNodeExporter is a fleet drill-down's samples where Prometheus holds
// tablefull's series but no node_exporter's: CPU, disks and TCP absent.
func noNodeExporter(samples []model.Sample) []model.Sample {
	out := append([]model.Sample(nil), samples...)
	for i := range out {
		s := &out[i]
		s.CPU, s.Disks, s.TCP = nil, nil, model.TCP{}
		s.Absent = model.Parts(0).With(model.PartCPU).With(model.PartDisks).With(model.PartTCP)
		s.Notes = []string{"not scraped: no node_exporter for this host in Prometheus (cpu, disks, tcp)"}
	}
	return out
}

// TestLinkScreens: a host that never connected shows no numbers at all,
// CONNECTING then DISCONNECTED with the transport's error whole; a host
// that had samples and lost its stream says DISCONNECTED with the error
// whole (goldens; go test ./tui -update).
func TestLinkScreens(t *testing.T) {
	for _, sc := range []struct {
		name    string
		samples []model.Sample
		err     error
		says    []string
	}{
		{"never-connected", nil, nil, []string{"CONNECTING", "waiting for the first sample from ssh nosuchhost"}},
		{"never-connected-down", nil, downErr(sshDown), []string{"DISCONNECTED", "attempt 3 failed, the next in 4s", "q quit"}},
		{"down-after-samples", incident(12), downErr(sshDown), []string{"DISCONNECTED", "attempt 3 failed, the next in 4s", "q quit"}},
		{"drilldown-no-node-exporter", noNodeExporter(incident(21)), nil, []string{"CPU and disk not scraped",
			"TCP not scraped", "CPU not read, disk not read"}},
	} {
		for _, size := range [][2]int{{80, 24}, {200, 50}} {
			t.Run(fmt.Sprintf("%s/%dx%d", sc.name, size[0], size[1]), func(t *testing.T) {
				feed := newScriptFeed(t, nil)
				feed.host = model.Host{}
				a := New(feed, Options{Interval: time.Second, Source: "ssh nosuchhost"})
				a.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
				for _, s := range sc.samples {
					a.Update(sampleMsg{s: s})
				}
				if sc.err != nil {
					a.Update(feedErrMsg{err: sc.err})
				}
				view := a.View()
				checkSize(t, view, size[0], size[1])
				flat := strings.Join(strings.Fields(view), " ")
				for _, want := range sc.says {
					if !strings.Contains(flat, want) {
						t.Errorf("the screen does not say %q:\n%s", want, view)
					}
				}
				if strings.HasPrefix(sc.name, "drilldown") {
					for _, invented := range []string{"server idle", "idle 100", "CPU 0 %", "ports 0-0"} {
						if strings.Contains(flat, invented) {
							t.Errorf("a drill-down without node_exporter shows %q:\n%s", invented, view)
						}
					}
				}
				if sc.samples == nil {
					for _, zero := range []string{"0 / 0", "0 CPU", "0 B", "ceiling", "OK"} {
						if strings.Contains(flat, zero) {
							t.Errorf("a host never heard from shows %q:\n%s", zero, view)
						}
					}
				}
				golden.RequireEqual(t, []byte(view))
			})
		}
	}
}

// TestNeverConnectedTabDoesNotHoldOthers: a tab whose host never
// connected says so without numbers, and the other tab goes on live.
func TestNeverConnectedTabDoesNotHoldOthers(t *testing.T) {
	down := New(newScriptFeed(t, nil), Options{Interval: time.Second, Source: "ssh nosuchhost"})
	up := New(newScriptFeed(t, nil), Options{Interval: time.Second, Source: "ssh web-3"})
	r := NewRoot(down, up)
	r.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	r.Update(feedErrMsg{id: 0, err: downErr(sshDown)})
	for _, s := range incident(12) {
		r.Update(sampleMsg{id: 1, s: s})
	}
	view := r.View()
	lines := strings.Split(view, "\n")
	if !strings.Contains(lines[0], "DISCONNECTED") || strings.Contains(lines[0], "0/0") {
		t.Errorf("the never-connected tab: %q", lines[0])
	}
	if !strings.Contains(lines[1], "TABLE FULL") || !strings.Contains(lines[1], "4,096/4,096") {
		t.Errorf("the live tab: %q", lines[1])
	}
}
