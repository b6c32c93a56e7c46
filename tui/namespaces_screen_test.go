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

// podFull is a node's samples: its own table quiet, a pod's pinned at the
// cap and dropping, 24 more namespaces far from it.
func podFull(n int) []model.Sample {
	out := incident(n) // its first samples: the host's own table quiet
	for i := range out {
		s := &out[i]
		s.Conntrack.Count, s.Conntrack.Peak = 525, 525
		rows := []model.NetNS{{Inode: 4026532177, Name: "3f2a9c1e-1b2c-4d5e", Kind: "pod", PID: 4242, Count: 4096, Drops: uint64(900 + 120*i), DropsRead: true}}
		for k := range 24 {
			rows = append(rows, model.NetNS{Inode: uint64(4026532300 + k), Name: fmt.Sprintf("web-%02d", k), Kind: "netns", PID: 5000 + k, Count: uint64(40 * (24 - k))})
		}
		ns := model.SortNamespaces(rows)
		s.Namespaces = &ns
	}
	return out
}

// TestNamespaceScreens: the verdict names the full pod while the host's
// own table is fine; N shows the namespaces, most full first, bounded,
// the rest counted (goldens; go test ./tui -update).
func TestNamespaceScreens(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			a := feedAll(t, podFull(6), size[0], size[1])
			a.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("N")})
			view := a.View()
			checkSize(t, view, size[0], size[1])
			flat := strings.Join(strings.Fields(view), " ")
			for _, want := range []string{"TABLE FULL — in pod 3f2a9c1e-1b2c-4d5e (pid 4242)", "namespaces", "FULL, 120 drops", "more namespaces", "host table count", "none in the host table"} {
				if !strings.Contains(flat, want) {
					t.Errorf("the screen does not say %q:\n%s", want, view)
				}
			}
			golden.RequireEqual(t, []byte(view))
		})
	}
}

// TestOpenNamespaceConsole: enter on a row of the panel opens that
// namespace's console as a tab of its own (as --netns does); esc there
// stops its feed and comes back.
func TestOpenNamespaceConsole(t *testing.T) {
	var asked model.NetNS
	stopped := make(chan bool, 1)
	open := func(ns model.NetNS) (*App, func(), error) {
		asked = ns
		return New(newScriptFeed(t, nil), Options{Source: "netns " + ns.Name}), func() { stopped <- true }, nil
	}
	host := New(newScriptFeed(t, nil), Options{OpenNamespace: open})
	r := NewRoot(host)
	r.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	for _, s := range podFull(4) {
		r.Update(sampleMsg{s: s})
	}
	do := func(msg tea.Msg) {
		_, cmd := r.Update(msg)
		if cmd == nil {
			return
		}
		if m := cmd(); m != nil {
			if _, ok := m.(openedMsg); ok {
				r.Update(m)
			}
		}
	}
	do(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("N")})
	do(tea.KeyMsg{Type: tea.KeyDown})
	do(tea.KeyMsg{Type: tea.KeyEnter})
	if len(r.apps) != 2 || r.active != 1 || asked.Name != "web-00" {
		t.Fatalf("after enter: %d tabs, active %d, opened %+v", len(r.apps), r.active, asked)
	}
	do(tea.KeyMsg{Type: tea.KeyEsc})
	if len(r.apps) != 1 || r.active != 0 {
		t.Errorf("after esc: %d tabs, active %d", len(r.apps), r.active)
	}
	select {
	case <-stopped:
	case <-time.After(2 * time.Second):
		t.Error("the namespace's feed was not stopped")
	}
}
