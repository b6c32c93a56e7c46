package cli

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/tablefull/tablefull/remote/agent"
)

// TestLiveOverSSHHost: s on a fleet row opens `--ssh HOST` for the
// instance label's host (its port dropped), labelled so, and stops clean.
func TestLiveOverSSHHost(t *testing.T) {
	if _, err := exec.LookPath("ssh"); err != nil {
		t.Skip("needs ssh")
	}
	app, stop, err := liveOverSSH(options{interval: time.Second}, &agent.Processes{})("web-3.invalid:9874")
	if err != nil {
		t.Fatal(err)
	}
	app.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
	if view := app.View(); !strings.Contains(view, "ssh web-3.invalid") || strings.Contains(view, ":9874") {
		t.Errorf("the live console is not named after the host:\n%s", view)
	}
	done := make(chan struct{})
	go func() { stop(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Error("stopping the live feed hung")
	}
	if _, _, err := liveOverSSH(options{interval: time.Second}, &agent.Processes{})("-oProxyCommand=x:9874"); err == nil {
		t.Error("an instance label that is an ssh option was taken")
	}
}
