package lab

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
)

// TestLabConsoleDurationAndFix: --fix-after and --duration hold in the
// lab's console as they do headless (they were taken and ignored), and E
// there lists and f follows the lab's table: the cap is raised to 16,384
// while the table is pinned, the console ends by itself with the
// terminal restored, and the host is restored. Its --record recording
// makes the report of the incident (reportSaysTheLabsIncident).
func TestLabConsoleDurationAndFix(t *testing.T) {
	clitest.NeedKernel(t, "tmux", "conntrack")
	orig := clitest.ReadSysctl(t, nil, "net.netfilter.nf_conntrack_max")
	t.Cleanup(func() { os.WriteFile(clitest.MaxPath, []byte(orig), 0o644) })
	dir := t.TempDir()
	rec := filepath.Join(dir, "incident.jsonl")
	start := time.Now()
	s := clitest.StartTmux(t, 160, 45, "", "lab", "table-full", "--fix-after", "10s", "--duration", "18s", "--record", rec)
	s.WaitFor("TABLE FULL")
	s.Keys("E") // the lab's own table, listed and followed from the host
	s.WaitFor("match no filter", "TIME_WAIT")
	s.Keys("f")
	s.WaitFor("following every entry since", "+ tcp")
	s.Keys("Escape")
	for deadline := time.Now().Add(12 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if screen := s.Capture(false); strings.Contains(screen, "/ 16,384 (") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no count / 16,384 on screen %s after --fix-after 10s:\n%s", time.Since(start).Round(time.Second), s.Capture(false))
		}
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if strings.Contains(s.Capture(false), "EXIT=0") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the console still runs %s after --duration 18s:\n%s", time.Since(start).Round(time.Second), s.Capture(false))
		}
	}
	if took := time.Since(start); took < 18*time.Second {
		t.Errorf("the console ended after %s, before --duration 18s", took.Round(time.Second))
	}
	s.WaitFor("TERMINAL-RESTORED")
	clitest.HostRestored(t, orig)
	clitest.ReportSaysTheLabsIncident(t, dir, rec)
}
