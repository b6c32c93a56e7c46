package console

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
)

// readmeScreenMark is what precedes the README's example screen.
const readmeScreenMark = "small object against an idle server), 16 s in, in a 100×32 pane:\n\n```\n"

// TestREADMEScreen re-captures the README's example screen from a real
// run: the lab's table-full incident in a 100×32 tmux pane, 16 s in.
// It rewrites README.md, so it runs only when asked:
//
//	TABLEFULL_README_SCREEN=1 (as root) go test ./cmd/tablefull/rooms/console -run TestREADMEScreen
func TestREADMEScreen(t *testing.T) {
	if os.Getenv("TABLEFULL_README_SCREEN") == "" {
		t.Skip("rewrites README.md: set TABLEFULL_README_SCREEN=1")
	}
	clitest.NeedKernel(t, "tmux")
	orig := clitest.ReadSysctl(t, nil, "net.netfilter.nf_conntrack_max")
	t.Cleanup(func() { os.WriteFile(clitest.MaxPath, []byte(orig), 0o644) })
	// Run as "tablefull" (a link to the test binary), as a user runs it:
	// the verdict names the process that opens the connections.
	exe, _ := os.Executable()
	link := filepath.Join(t.TempDir(), "tablefull")
	if err := os.Symlink(exe, link); err != nil {
		t.Fatal(err)
	}
	s := clitest.StartTmuxArgv(t, 100, 32, []string{"env -u CI -u NO_COLOR -u CLICOLOR TABLEFULL_AS_MAIN=1", link, "lab", "table-full"})
	s.WaitFor("lab table-full", "LIVE")
	start := time.Now()
	s.WaitFor("TABLE FULL")
	time.Sleep(time.Until(start.Add(16 * time.Second)))
	screen := strings.TrimRight(s.Capture(false), "\n")
	var lines []string
	for _, l := range strings.Split(screen, "\n") {
		lines = append(lines, strings.TrimRight(l, " "))
	}
	s.Keys("q")
	s.WaitFor("EXIT=0")
	readme, err := os.ReadFile("../../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	i := strings.Index(text, readmeScreenMark)
	if i < 0 {
		t.Fatal("the README has no example screen to replace")
	}
	from := i + len(readmeScreenMark)
	to := from + strings.Index(text[from:], "```")
	text = text[:from] + strings.Join(lines, "\n") + "\n" + text[to:]
	if err := os.WriteFile("../../../../README.md", []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
