package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/knob"
)

// after continues samples from the last of s for n seconds at count of
// max, with dropsPS drops and newPS new TCP entries a second, the
// TIME_WAIT hold lowered to 30 s as the plan proposed.
func after(s []model.Sample, n int, count, max, dropsPS, newPS uint64) []model.Sample {
	out := append([]model.Sample(nil), s...)
	for range n {
		x := out[len(out)-1]
		x.Time = x.Time.Add(time.Second)
		x.Conntrack.Count, x.Conntrack.Peak, x.Conntrack.Max = count, count, max
		x.Conntrack.TimeWaitHold, x.Conntrack.Holds[model.ClassTCPDone] = 30, 30
		x.CTStats.PerCPU = append([]model.CPUCounters(nil), x.CTStats.PerCPU...)
		x.CTStats.PerCPU[0].Values[0] += dropsPS // model.Drop is the first counter
		x.CPU = append([]model.CPUTimes(nil), x.CPU...)
		x.CPU[0].Idle++
		x.Entries.New[model.ProtoTCP] += newPS
		x.Entries.Ended[model.ClassTCPDone] += newPS
		x.TCP.ActiveOpens += newPS
		if dropsPS > 0 {
			x.TCP.SynRetrans += 5 * dropsPS
		}
		out = append(out, x)
	}
	return out
}

// tuneScreen opens the panel over samples, applies its plan when apply
// is set and feeds then, and returns the screen.
func tuneScreen(t *testing.T, samples []model.Sample, apply bool, then func(max uint64) []model.Sample, w, h int) (string, *fakeTuner) {
	t.Helper()
	tu := &fakeTuner{values: map[string]string{knob.Max: "500", knob.Hashsize: "512", knob.TimeWait: "120",
		knob.UDPTimeout: "30", knob.SynSent: "120", knob.UDPStream: "120", knob.Somaxconn: "4096", knob.SynBacklog: "512",
		knob.PortRange: "32768 60999", knob.TwReuse: "2"}}
	tu.values[knob.Max] = fmt.Sprint(samples[len(samples)-1].Conntrack.Max)
	tu.values[knob.Hashsize] = tu.values[knob.Max]
	a := New(newScriptFeed(t, nil), Options{Interval: time.Second, Tuner: tu})
	a.host.Kernel, a.host.MemTotal = "6.1.0", 2<<30
	a.Update(tea.WindowSizeMsg{Width: w, Height: h})
	for _, s := range samples {
		a.Update(sampleMsg{s: s})
	}
	runAll(a, typed("t"))
	if apply {
		runAll(a, typed("a"))
		runAll(a, typed("y"))
		var max uint64
		fmt.Sscan(tu.values[knob.Max], &max)
		for _, s := range then(max)[len(samples):] {
			a.Update(sampleMsg{s: s})
		}
	}
	return a.View(), tu
}

// TestTuneScreens: the panel where the operator presses t, at 80×24 and
// 200×50 (goldens; go test ./tui -update): a proposal with its
// arithmetic, nothing to propose, and the guided loop's three states
// after an apply.
func TestTuneScreens(t *testing.T) {
	redis := counted(incident(21)[10:], model.ProtoTCP, model.ClassTCPDone, 4, "tcp/6379")
	for i := range redis {
		c := &redis[i].Conntrack
		c.Max, c.Count, c.Peak = 500, 500, 500
		redis[i].TCP.SynRetrans = uint64(700 * i)
	}
	loopback := counted(incident(5), model.ProtoTCP, model.ClassTCPDone, 50, "tcp/18080")
	for i := range loopback {
		loopback[i].Conntrack.Max, loopback[i].Conntrack.Count, loopback[i].Conntrack.Peak = 262144, 525, 525
	}
	for _, sc := range []struct {
		name    string
		samples []model.Sample
		apply   bool
		then    func(max uint64) []model.Sample
		says    []string
	}{
		{"proposal", redis, false, nil, []string{"500 → 8192", "120 → 30", "memory", "demand"}},
		{"nothing", loopback, false, nil, []string{"nothing to propose: the current values hold"}},
		{"loop-pinned", redis, true, func(max uint64) []model.Sample { return after(redis, 8, max, max, 300, 130) },
			[]string{"still pinned:", "(a applies it)"}},
		{"loop-freed", redis, true, func(max uint64) []model.Sample { return after(redis, 34, 3100, max, 0, 100) },
			[]string{"freed: no drops for", "headroom"}},
		{"loop-settle", redis, true, func(max uint64) []model.Sample { return after(redis, 75, 1500, max, 0, 50) },
			[]string{"settle: free for", "8192 → 4096", "the write-up's way back down"}},
	} {
		for _, size := range [][2]int{{80, 24}, {200, 50}} {
			t.Run(fmt.Sprintf("%s/%dx%d", sc.name, size[0], size[1]), func(t *testing.T) {
				view, _ := tuneScreen(t, sc.samples, sc.apply, sc.then, size[0], size[1])
				checkSize(t, view, size[0], size[1])
				if size[0] == 200 {
					flat := strings.Join(strings.Fields(view), " ")
					for _, want := range sc.says {
						if !strings.Contains(flat, strings.Join(strings.Fields(want), " ")) {
							t.Errorf("the panel does not say %q:\n%s", want, view)
						}
					}
				}
				golden.RequireEqual(t, []byte(view))
			})
		}
	}
}
