package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/tablefull/tablefull/model/knob"
)

// TestDriftScreens: a persisted nf_conntrack_max that did not apply at
// boot is a warning under the table's numbers, naming both values and
// the later writer, at 80×24 and 200×50 (goldens; go test ./tui -update).
func TestDriftScreens(t *testing.T) {
	drift := &knob.Drifts{Checked: []string{knob.Max, knob.TimeWait},
		Drifted: []knob.Drift{{Knob: knob.Max, Persisted: "32768", Live: "4096", Writers: []string{"/etc/sysctl.d/99-zz-local.conf (4096)"}}}}
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			a := New(newScriptFeed(t, nil), Options{Interval: time.Second, Source: "local"})
			a.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
			for _, s := range incident(12) {
				s.Drift = drift
				a.Update(sampleMsg{s: s})
			}
			view := a.View()
			checkSize(t, view, size[0], size[1])
			flat := strings.Join(strings.Fields(view), " ")
			for _, want := range []string{"drift persisted nf_conntrack_max 32768, live 4096", "did not apply"} {
				if !strings.Contains(flat, want) {
					t.Errorf("the screen does not say %q:\n%s", want, view)
				}
			}
			if size[0] == 200 && !strings.Contains(flat, "99-zz-local.conf") {
				t.Errorf("the wide screen does not name the later writer:\n%s", view)
			}
			golden.RequireEqual(t, []byte(view))
		})
	}
}
