package lab

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/tuning"
	"github.com/tablefull/tablefull/sources/kernelfs"
	"github.com/tablefull/tablefull/sources/lab"
	"github.com/tablefull/tablefull/sources/netns"
	"github.com/tablefull/tablefull/sources/tune"
)

// startLab starts a lab without a duration and waits for its first
// sample.
func startLab(t *testing.T, scenario string) *exec.Cmd {
	t.Helper()
	exe, _ := os.Executable()
	cmd := exec.Command(exe, "lab", scenario, "--headless", "--interval", "500ms")
	cmd.Env = append(os.Environ(), "TABLEFULL_AS_MAIN=1")
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if strings.Contains(sc.Text(), "count=") {
			go func() {
				for sc.Scan() {
				}
			}()
			return cmd
		}
	}
	t.Fatal("the lab printed no sample")
	return nil
}

// killedThenRepaired kills lab with SIGKILL, checks it left the max at
// left, and that the next lab repairs it to orig and says so.
func killedThenRepaired(t *testing.T, lab *exec.Cmd, left, orig string) {
	t.Helper()
	lab.Process.Signal(syscall.SIGKILL)
	lab.Wait()
	if got := clitest.ReadSysctl(t, nil, "net.netfilter.nf_conntrack_max"); got != left {
		t.Fatalf("after kill -9 max is %s, want %s: the test did not leave the host changed", got, left)
	}
	exe, _ := os.Executable()
	next := exec.Command(exe, "lab", "healthy", "--headless", "--duration", "1s")
	next.Env = append(os.Environ(), "TABLEFULL_AS_MAIN=1")
	if out, err := next.CombinedOutput(); err != nil || !strings.Contains(string(out), "repaired what an earlier lab left: ") ||
		!strings.Contains(string(out), "net.netfilter.nf_conntrack_max="+orig) {
		t.Errorf("the next lab did not repair: %v\n%s", err, out)
	}
}

// TestLabKilledThenRepaired: one lab at a time; a lab killed with kill -9
// is repaired by the next lab and by tablefull tune --undo, and SIGTERM
// and SIGHUP are normal ways out.
func TestLabKilledThenRepaired(t *testing.T) {
	clitest.NeedKernel(t)
	orig := clitest.ReadSysctl(t, nil, "net.netfilter.nf_conntrack_max")
	buckets, _ := os.ReadFile(clitest.HashsizePath)
	t.Cleanup(func() {
		os.WriteFile(clitest.MaxPath, []byte(orig), 0o644)
		if len(buckets) > 0 {
			os.WriteFile(clitest.HashsizePath, buckets, 0o644) // table-full sets max = buckets
		}
		exec.Command("ip", "netns", "del", "tablefull-lab").Run()
		os.Remove("/run/tablefull-lab.json")
		os.RemoveAll("/run/tablefull-lab") // the undo record of a failed run
	})
	first := startLab(t, "table-full")
	second, _ := os.Executable()
	refused := exec.Command(second, "lab", "healthy", "--headless", "--duration", "1s")
	refused.Env = append(os.Environ(), "TABLEFULL_AS_MAIN=1")
	if out, err := refused.CombinedOutput(); err == nil || !strings.Contains(string(out), "another lab is running") {
		t.Errorf("a second lab was not refused: %v %s", err, out)
	}
	killedThenRepaired(t, first, "512", orig)
	clitest.HostRestored(t, orig)

	// SIGTERM is a normal way out; SIGHUP (the terminal closed) too.
	term := startLab(t, "table-full")
	term.Process.Signal(syscall.SIGTERM)
	if err := term.Wait(); err != nil {
		t.Errorf("lab after SIGTERM: %v", err)
	}
	clitest.HostRestored(t, orig)
	hup := startLab(t, "table-full")
	hup.Process.Signal(syscall.SIGHUP)
	if err := hup.Wait(); err != nil {
		t.Errorf("lab after SIGHUP: %v (a closed terminal is a normal way out)", err)
	}
	clitest.HostRestored(t, orig)

	// kill -9 again, and tablefull tune --undo puts the host back from the
	// lab's undo record, as it would after any tablefull change.
	killed := startLab(t, "table-full")
	killed.Process.Signal(syscall.SIGKILL)
	killed.Wait()
	if got := clitest.ReadSysctl(t, nil, knob.Max); got != "512" {
		t.Fatalf("after kill -9 max is %s, want 512: the test did not leave the host changed", got)
	}
	code, out := clitest.TuneIn(t, nil, "--undo", "--state-dir", t.TempDir())
	if code != 0 || !strings.Contains(out, "repaired what an earlier lab left: net.netfilter.nf_conntrack_max="+orig) ||
		!strings.Contains(out, "namespace tablefull-lab deleted") {
		t.Errorf("tablefull tune --undo after a killed lab: exit %d\n%s", code, out)
	}
	clitest.HostRestored(t, orig)
	if _, err := os.Stat("/run/tablefull-lab"); err == nil {
		t.Errorf("the lab's undo record's directory is still there")
	}
}

// TestLabFixLive: in the lab's console, t, then a and y up to three
// times as the panel's loop asks, apply the proposal from the host
// namespace; the table clears while the user watches, the before/after
// comparison shows it, and u restores the lab's cap.
func TestLabFixLive(t *testing.T) {
	clitest.NeedKernel(t, "tmux", "conntrack")
	orig := clitest.ReadSysctl(t, nil, "net.netfilter.nf_conntrack_max")
	t.Cleanup(func() { os.WriteFile(clitest.MaxPath, []byte(orig), 0o644) })
	s := clitest.StartTmux(t, 160, 45, "", "lab", "table-full")
	s.WaitFor("TABLE FULL")
	labCap := clitest.ReadSysctl(t, nil, knob.Max)
	s.Keys("t")
	s.WaitFor("tuning", "→")
	clitest.ApplyUntilFree(t, s, &netns.NS{Name: lab.NSName})
	s.WaitFor("verified", "before → after", "▲")
	s.WaitFor("drops/s", "→ 0")
	clitest.UndoRestores(t, s, labCap)
	s.Keys("Escape")
	time.Sleep(300 * time.Millisecond)
	s.Keys("q")
	s.WaitFor("EXIT=0")
	clitest.HostRestored(t, orig)
}

// TestLabRestoresGlobalsItChanged: global knobs the lab changes beyond
// its scenario — --fix-after in a scenario that keeps the max, max and
// hashsize from the tuning panel — are restored when it ends, and after a
// kill -9 by the next lab.
func TestLabRestoresGlobalsItChanged(t *testing.T) {
	clitest.NeedKernel(t)
	const hashPath = "/sys/module/nf_conntrack/parameters/hashsize"
	origMax := clitest.ReadSysctl(t, nil, "net.netfilter.nf_conntrack_max")
	b, err := os.ReadFile(hashPath)
	if err != nil {
		t.Skipf("needs %s: %v", hashPath, err)
	}
	origHash := strings.TrimSpace(string(b))
	t.Cleanup(func() {
		os.WriteFile(clitest.MaxPath, []byte(origMax), 0o644)
		os.WriteFile(hashPath, []byte(origHash), 0o644)
		exec.Command("ip", "netns", "del", "tablefull-lab").Run()
		os.Remove("/run/tablefull-lab.json")
		os.RemoveAll("/run/tablefull-lab") // the undo record of a failed run
	})

	exe, _ := os.Executable()
	// table-full lowers the cap to 512, so --fix-after (which only raises)
	// changes it.
	cmd := exec.Command(exe, "lab", "table-full", "--headless", "--interval", "500ms", "--fix-after", "1s")
	cmd.Env = append(os.Environ(), "TABLEFULL_AS_MAIN=1")
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	for sc.Scan() && !strings.HasPrefix(sc.Text(), "fix:") {
	}
	killedThenRepaired(t, cmd, "16384", origMax)
	clitest.HostRestored(t, origMax)

	l, err := lab.Start("healthy", lab.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tu := l.Tuning(tune.NewSysctls(kernelfs.DefaultRoots()))
	hash, _ := strconv.ParseUint(origHash, 10, 64)
	if _, err := tu.Apply([]tuning.Change{{Key: knob.Max, Proposed: "131072"}, {Key: knob.Hashsize, Proposed: strconv.FormatUint(hash*2, 10)}}, 0); err != nil {
		l.Close()
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(hashPath); strings.TrimSpace(string(b)) != origHash {
		t.Errorf("hashsize after the lab: %s, want %s", b, origHash)
	}
	clitest.HostRestored(t, origMax)
}
