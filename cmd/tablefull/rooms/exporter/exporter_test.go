package exporter

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/sources/kernelfs/kernelfstest"
	"github.com/tablefull/tablefull/sources/netns"
)

// waitMetric scrapes until the exposition holds line, or fails.
func waitMetric(t *testing.T, addr, line string, within time.Duration) {
	t.Helper()
	var text string
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if text = clitest.MetricsText(t, addr); strings.Contains(text, line+"\n") {
			return
		}
	}
	t.Fatalf("no %q within %s; the tablefull lines were:\n%s", line, within, tablefullLines(text))
}

// TestExporterUnprivileged: as nobody the exporter serves the table and
// says, as metrics, which parts it cannot read.
func TestExporterUnprivileged(t *testing.T) {
	kernelfstest.Need(t, "a run as nobody")
	bin := clitest.NobodyBinary(t)
	addr := fmt.Sprintf("127.0.0.1:%d", clitest.FreePort(t))
	cmd := exec.Command(bin, "exporter", "--listen", addr)
	cmd.Env = []string{"TABLEFULL_AS_MAIN=1"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	clitest.StartDaemon(t, cmd)
	clitest.WaitHTTP(t, "http://"+addr+"/metrics", 10*time.Second)
	waitMetric(t, addr, `tablefull_up{part="stream"} 1`, 5*time.Second)
	text := clitest.MetricsText(t, addr)
	want := []string{"tablefull_build_info{", `tablefull_up{part="conntrack"} 1`, "tablefull_conntrack_entries_limit "}
	if restricted, _ := os.ReadFile("/proc/sys/kernel/dmesg_restrict"); string(restricted) == "1\n" {
		want = append(want, `tablefull_up{part="kernel_log"} 0`)
	}
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("as nobody, no %q in the scrape", w)
		}
	}
}

// TestExporterNamespaceGone: exporting a namespace that is deleted keeps
// answering, with the stream part down, and a second exporter on the same
// address is a clear error and exit 1.
func TestExporterNamespaceGone(t *testing.T) {
	clitest.NeedKernel(t)
	ns, err := netns.Create(fmt.Sprintf("tft-%d-gone", os.Getpid()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { exec.Command("ip", "netns", "del", ns.Name).Run() })
	addr, pid := clitest.StartExporter(t, ns.Name, "200ms")
	waitMetric(t, addr, `tablefull_up{part="stream"} 1`, 5*time.Second)

	exe, _ := os.Executable()
	again := exec.Command(exe, "exporter", "--listen", addr)
	again.Env = append(os.Environ(), "TABLEFULL_AS_MAIN=1")
	out, err := again.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), "address already in use") {
		t.Errorf("a second exporter on %s: %v %s", addr, err, out)
	}

	// The namespace's name goes; the agent in it is killed (the namespace
	// itself lives while a process is in it): the exporter cannot start
	// another, keeps answering and says the stream is down.
	if out, err := exec.Command("ip", "netns", "del", ns.Name).CombinedOutput(); err != nil {
		t.Fatalf("ip netns del: %v %s", err, out)
	}
	clitest.SignalAll(clitest.ProcsUnder(pid, func([]string) bool { return true }), syscall.SIGKILL) // its agent
	waitMetric(t, addr, `tablefull_up{part="stream"} 0`, 10*time.Second)
	if !strings.Contains(clitest.MetricsText(t, addr), "tablefull_conntrack_entries_limit ") {
		t.Error("the last numbers are gone from the scrape")
	}
}

// tablefullLines keeps the exposition's tablefull_ samples, for a message.
func tablefullLines(text string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "tablefull_") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestExporterSaysWhereItListens: on start the exporter says on stderr,
// in one line, where it listens (the port the kernel chose for :0) and
// what it exports; SIGTERM ends it at once, cleanly, saying why.
func TestExporterSaysWhereItListens(t *testing.T) {
	exe, _ := os.Executable()
	cmd := exec.Command(exe, "exporter", "--listen", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "TABLEFULL_AS_MAIN=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(stderr).ReadString('\n')
	if err != nil {
		t.Fatalf("no line on stderr: %v", err)
	}
	m := regexp.MustCompile(`^tablefull exporter \S+: serving this host's conntrack table on (http://127\.0\.0\.1:(\d+)/metrics)\n$`).FindStringSubmatch(line)
	if m == nil || m[2] == "0" {
		t.Fatalf("start line %q", line)
	}
	clitest.WaitHTTP(t, m[1], 10*time.Second)
	rest := make(chan string, 1)
	go func() { b, _ := io.ReadAll(stderr); rest <- string(b) }()
	start := time.Now()
	cmd.Process.Signal(syscall.SIGTERM)
	said := <-rest // stderr closes as the process ends
	if err := cmd.Wait(); err != nil {
		t.Errorf("after SIGTERM: %v, want a clean exit", err)
	}
	if took := time.Since(start); took > time.Second || !strings.Contains(said, "stopping (terminated signal received)") {
		t.Errorf("SIGTERM: exited in %s, said %q; want at once, saying why", took, said)
	}
}
