// Command idletea is the bench's floor reference: a program run as the
// console is (tui.Run: the painter, the alternate screen, one P) that shows
// a fixed 200×50 screen and does nothing else. What it costs is what any
// console on this stack costs before doing any work.
package main

import (
	"fmt"
	"os"
	"runtime"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/tablefull/tablefull/tui"
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
	if err := tui.Run(idle{screen}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
