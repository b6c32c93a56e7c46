// Command idletea is the bench's floor reference: a bubbletea program set
// up as the console is (alternate screen, 10 frames a second, one P) that
// shows a fixed 200×50 screen and does nothing else. What it costs is what
// any console on this stack costs before doing any work.
package main

import (
	"fmt"
	"os"
	"runtime"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

type idle struct{ screen string }

func (m idle) Init() tea.Cmd { return nil }

func (m idle) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyMsg); ok && k.String() == "q" {
		return m, tea.Quit
	}
	return m, nil
}

func (m idle) View() string { return m.screen }

func main() {
	runtime.GOMAXPROCS(1)
	screen := strings.Repeat(strings.Repeat("·", 199)+"\n", 49)
	if _, err := tea.NewProgram(idle{screen}, tea.WithAltScreen(), tea.WithFPS(10)).Run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
