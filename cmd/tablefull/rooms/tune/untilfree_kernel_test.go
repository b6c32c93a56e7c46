package tune

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/sources/lab"
	"github.com/tablefull/tablefull/sources/netns"
	"github.com/tablefull/tablefull/sources/netns/nstest"
)

// TestUntilFreeLab: the lab's table-full incident, headless and recorded,
// says TABLE FULL as it pins, and is followed by the loop in text: each
// step printed with its undo, the table freed; undo, then the lab's end
// puts the host back and leaves its recording.
func TestUntilFreeLab(t *testing.T) {
	nstest.Parallel(t, nstest.Claim{Max: 512, Changes: true}) // the lab's cap
	clitest.NeedKernel(t)
	orig := clitest.ReadSysctl(t, nil, knob.Max)
	exe, _ := os.Executable()
	rec := filepath.Join(t.TempDir(), "lab.jsonl")
	l := exec.Command(exe, "lab", "table-full", "--headless", "--duration", "3m", "--interval", "500ms", "--record", rec)
	l.Env = append(os.Environ(), "TABLEFULL_AS_MAIN=1")
	var labOut bytes.Buffer
	l.Stdout, l.Stderr = &labOut, &labOut
	if err := l.Start(); err != nil {
		t.Fatal(err)
	}
	ended := false
	t.Cleanup(func() {
		if !ended {
			l.Process.Signal(syscall.SIGINT)
			l.Wait()
		}
	})
	ns := &netns.NS{Name: lab.NSName}
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if _, err := os.Stat(ns.Path()); err == nil {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("no lab namespace: %s", labOut.String())
		}
	}
	clitest.WaitPinned(t, ns, 512, 20*time.Second)
	state := t.TempDir()
	code, out, errs := clitest.TuneFromHost(t, ns.Name, "--until-free", "--yes", "--observe", "4s", "--state-dir", state)
	t.Log(out)
	if code != 0 || !strings.Contains(out, "step 1 of at most 3") || !strings.Contains(out, "undo: tablefull tune --netns") ||
		!strings.Contains(out, ": freed: no drops for") {
		t.Fatalf("tune --until-free on the lab: exit %d:\n%s%s\nlab:\n%s", code, out, errs, labOut.String())
	}
	if !regexp.MustCompile(`(?m)^the workload: drops/s [1-9][0-9.,]* → 0, new connections admitted/s [0-9.,]+ → [1-9][0-9.,]* \(over [0-9].* before the first step, [0-9].* after the last\)$`).MatchString(out) {
		t.Errorf("the loop's closing lines do not give the workload before and after:\n%s", out)
	}
	if n := strings.Count(out, "verified"); n == 0 || strings.Contains(out, "NOT VERIFIED") {
		t.Errorf("steps not verified:\n%s", out)
	}
	clitest.UndoFromHost(t, ns, state, "512", knob.TimeWait, "120")
	l.Process.Signal(syscall.SIGINT)
	l.Wait()
	ended = true
	clitest.HostRestored(t, orig)
	var lines []string
	for _, l := range strings.Split(labOut.String(), "\n") {
		if clitest.VerdictRe.MatchString(l) {
			lines = append(lines, l)
		}
	}
	clitest.PinThenFull(t, lines)
	// the headless lab's --record: every sample it printed, in a recording
	// that reads back (the console's is TestLabConsoleDurationAndFix's)
	got, err := clitest.ReadRecording(rec)
	if err != nil {
		t.Fatalf("the headless lab's recording: %v", err)
	}
	if len(got.Samples) < len(lines) {
		t.Errorf("the headless lab's recording holds %d samples for %d printed", len(got.Samples), len(lines))
	}
}
