package entries

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/model/entry"
	"github.com/tablefull/tablefull/model/tuning"
	"github.com/tablefull/tablefull/remote/agent"
	"github.com/tablefull/tablefull/sources"
	"github.com/tablefull/tablefull/sources/netns"
	"github.com/tablefull/tablefull/sources/nsenter"
	"golang.org/x/sys/unix"
)

// insertUDP makes n UDP entries in ns with conntrack -I, from
// 10.1.1.1:1000… to 10.2.2.2:port, each with a long timeout.
func insertUDP(t *testing.T, ns *netns.NS, port, n int) {
	t.Helper()
	for i := range n {
		if out, err := ns.Output("conntrack", "-I", "-p", "udp", "--src", "10.1.1.1", "--dst", "10.2.2.2", "--sport", fmt.Sprint(1000+i),
			"--dport", fmt.Sprint(port), "--timeout", "600"); err != nil {
			t.Fatalf("conntrack -I: %v %s", err, out)
		}
	}
}

// udpLeft is how many UDP entries to port ns's table holds.
func udpLeft(t *testing.T, ns *netns.NS, port int) int {
	t.Helper()
	out, _ := ns.Output("conntrack", "-L", "-p", "udp", "--dport", fmt.Sprint(port))
	return strings.Count(out, "dport="+fmt.Sprint(port)+" ")
}

// journalLines is the deletions journalled in dir.
func journalLines(dir string) int {
	b, _ := os.ReadFile(filepath.Join(dir, sources.JournalName))
	return strings.Count(string(b), "\n")
}

// TestEntriesOfOtherTables: the console's E, D and f on a table that is
// not its own. A namespace of this host is listed and deleted from the host
// (journalled in the console's state directory); a remote one through
// its agent (a real agent, over a stream), which lists a screen's rows
// with every match counted, follows the entries made and deleted, deletes
// and journals on its own host, and refuses established connections. A link cut while the agent holds a
// deletion: the console is told the link was cut, and the agent deletes
// and journals all of it or none (what a cut session leaves is whole).
func TestEntriesOfOtherTables(t *testing.T) {
	clitest.NeedKernel(t, "conntrack", "cat")
	ns := clitest.LabNS(t)
	dir := t.TempDir()
	udp := func(port string) entry.Filter {
		f, err := entry.ParseFilter(entry.FilterArgs{"proto": "udp", "dport": port})
		if err != nil {
			t.Fatal(err)
		}
		return f
	}

	insertUDP(t, ns, 53, 30)
	opened, err := nsenter.Open(ns.Path())
	if err != nil {
		t.Fatal(err)
	}
	list, del, _ := sources.NetnsEntries(opened, filepath.Join(dir, "host"))
	if l, err := list(udp("53"), "", false, 10); err != nil || l.Matched != 30 || len(l.Rows()) != 10 {
		t.Fatalf("from the host: %+v, %v; want 30 matched, 10 rows", l, err)
	}
	if d, err := del(udp("53"), false); err != nil || d.Deleted != 30 || udpLeft(t, ns, 53) != 0 || journalLines(filepath.Join(dir, "host")) != 1 {
		t.Fatalf("deleted from the host: %+v, %v; %d left, %d journalled", d, err, udpLeft(t, ns, 53), journalLines(filepath.Join(dir, "host")))
	}
	var st syscall.Stat_t
	if err := syscall.Stat(ns.Path(), &st); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "host", sources.JournalName)); !strings.Contains(string(b), fmt.Sprintf(`"netns":"net:[%d]"`, st.Ino)) {
		t.Errorf("the host's journal does not name the namespace (inode %d): %s", st.Ino, b)
	}

	exe, _ := os.Executable()
	agentDir := filepath.Join(dir, "agent")
	marker := "tablefull-entries-agent-" + fmt.Sprint(os.Getpid())
	// A relay stands for the transport (ssh): cutting it leaves the agent.
	p := &agent.Process{Name: "relay", MinBackoff: 200 * time.Millisecond, Argv: []string{"sh", "-c",
		fmt.Sprintf("cat | ip netns exec %s env TABLEFULL_AS_MAIN=1 %s agent --state-dir %s | cat # %s", ns.Name, exe, agentDir, marker)}}
	p.Start(500 * time.Millisecond)
	t.Cleanup(p.Stop)
	if _, err := p.Next(); err != nil {
		t.Fatal(err)
	}
	remoteEntries := agent.RemoteEntries{P: p}
	fol, err := remoteEntries.Follow(udp("54"))
	if err != nil {
		t.Fatalf("follow through the agent: %v", err)
	}
	insertUDP(t, ns, 54, 100)
	if l, err := remoteEntries.List(udp("54"), "sport", true, 200); err != nil || l.Matched != 100 || len(l.Rows()) != agent.MaxAgentRows || l.Rows()[0].SrcPort != 1099 {
		t.Fatalf("through the agent: %v; want 100 matched, %d rows from port 1099 down", err, agent.MaxAgentRows)
	}
	if d, err := remoteEntries.Delete(udp("54"), false); err != nil || d.Deleted != 100 || udpLeft(t, ns, 54) != 0 || journalLines(agentDir) != 1 {
		t.Fatalf("deleted through the agent: %+v, %v; %d left, %d journalled in its state directory", d, err, udpLeft(t, ns, 54), journalLines(agentDir))
	}
	var seen entry.Follow
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		if seen, _ = fol.Read(); seen.New == 100 && seen.Gone == 100 {
			break
		}
	}
	if seen.New != 100 || seen.Gone != 100 || len(seen.Recent) != 200 || !seen.Recent[199].Gone {
		t.Errorf("followed through the agent: %d made, %d ended, %d events; want the 100 made and deleted", seen.New, seen.Gone, len(seen.Recent))
	}
	fol.Close()
	if out, err := ns.Output("conntrack", "-I", "-p", "tcp", "--src", "10.1.1.1", "--dst", "10.2.2.2", "--sport", "2000", "--dport", "80",
		"--state", "ESTABLISHED", "--timeout", "600"); err != nil {
		t.Fatalf("conntrack -I: %v %s", err, out)
	}
	tcp, _ := entry.ParseFilter(entry.FilterArgs{"proto": "tcp"})
	if _, err := remoteEntries.Delete(tcp, false); err == nil || !strings.Contains(err.Error(), "established") {
		t.Errorf("the agent deleted established connections, or said otherwise: %v", err)
	}

	// Cut with the request done: the answer waits in a stopped relay
	// while the agent deletes and journals all of it.
	insertUDP(t, ns, 55, 20)
	up, down, agentPID := relayParts(t, marker, exe, agentDir)
	sendSignal(t, down, syscall.SIGSTOP)
	done := make(chan error, 1)
	go func() { _, err := remoteEntries.Delete(udp("55"), false); done <- err }()
	for end := time.Now().Add(10 * time.Second); journalLines(agentDir) < 2 && time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
	}
	sendSignal(t, up, syscall.SIGKILL)
	sendSignal(t, down, syscall.SIGKILL) // the transport dies
	if err := <-done; !errors.Is(err, tuning.ErrLinkCut) {
		t.Errorf("the console was told %v, want that the link was cut", err)
	}
	if left, n := udpLeft(t, ns, 55), journalLines(agentDir); left != 0 || n != 2 {
		t.Errorf("the agent held the whole request when the link was cut: %d of 20 entries left, %d deletions journalled; want 0 and 2", left, n)
	}
	agentEnds(t, agentPID)

	// Cut before the request reaches the agent: it is lost in a stopped
	// relay, and the agent, its stream gone, deletes nothing.
	cut := agentPID
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) { // the relay starts again
		if pid := strings.TrimSpace(pgrep(t, "-f", "^"+exe+" agent --state-dir "+agentDir)); pid != "" && pid != strconv.Itoa(cut) {
			break
		}
	}
	for i := 0; ; i++ { // the cut may be said first
		_, err := p.Next()
		if err == nil {
			break
		}
		if i == 3 {
			t.Fatalf("the relay did not start again: %v", err)
		}
	}
	insertUDP(t, ns, 56, 20)
	up, down, agentPID = relayParts(t, marker, exe, agentDir)
	sendSignal(t, up, syscall.SIGSTOP)
	go func() { _, err := remoteEntries.Delete(udp("56"), false); done <- err }()
	for end := time.Now().Add(10 * time.Second); unread(t, up) == 0 && time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
	}
	sendSignal(t, up, syscall.SIGKILL)
	sendSignal(t, down, syscall.SIGKILL)
	if err := <-done; !errors.Is(err, tuning.ErrLinkCut) {
		t.Errorf("the console was told %v, want that the link was cut", err)
	}
	agentEnds(t, agentPID)
	if left, n := udpLeft(t, ns, 56), journalLines(agentDir); left != 20 || n != 2 {
		t.Errorf("the agent never had the request: %d of 20 entries left, %d deletions journalled; want 20 and 2", left, n)
	}
}

// relayParts finds the relay's two cats — up feeds the agent's stdin,
// down reads its stdout — and the agent, by the pipes they share.
func relayParts(t *testing.T, marker, exe, agentDir string) (up, down, agentPID int) {
	t.Helper()
	agentPID = mustAtoi(t, strings.TrimSpace(pgrep(t, "-f", "^"+exe+" agent --state-dir "+agentDir)))
	in, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/0", agentPID))
	out, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/1", agentPID))
	sh := strings.Fields(pgrep(t, "-f", marker))
	if len(sh) == 0 {
		t.Fatal("the relay is not running")
	}
	for _, cat := range strings.Fields(pgrep(t, "-P", sh[0], "-x", "cat")) {
		pid := mustAtoi(t, cat)
		if l, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/1", pid)); l == in {
			up = pid
		}
		if l, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/0", pid)); l == out {
			down = pid
		}
	}
	if up == 0 || down == 0 {
		t.Fatalf("the relay's cats around agent %d (stdin %s, stdout %s) not found: up %d, down %d", agentPID, in, out, up, down)
	}
	return up, down, agentPID
}

// sendSignal sends sig to pid; a process that is gone fails the test.
func sendSignal(t *testing.T, pid int, sig syscall.Signal) {
	t.Helper()
	if err := syscall.Kill(pid, sig); err != nil {
		t.Fatalf("kill -%d %d: %v", sig, pid, err)
	}
}

// unread is how many bytes wait in pid's stdin pipe.
func unread(t *testing.T, pid int) int {
	t.Helper()
	fd, err := unix.Open(fmt.Sprintf("/proc/%d/fd/0", pid), unix.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		t.Fatalf("the stdin of %d: %v", pid, err)
	}
	defer unix.Close(fd)
	n, err := unix.IoctlGetInt(fd, unix.TIOCINQ) // FIONREAD
	if err != nil {
		t.Fatalf("FIONREAD on the stdin of %d: %v", pid, err)
	}
	return n
}

// agentEnds waits for the cut agent to end.
func agentEnds(t *testing.T, pid int) {
	t.Helper()
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if syscall.Kill(pid, 0) != nil {
			return
		}
	}
	t.Errorf("the cut agent %d is still running", pid)
}

// pgrep runs pgrep with args and returns what it prints.
func pgrep(t *testing.T, args ...string) string {
	t.Helper()
	out, _ := exec.Command("pgrep", args...).Output()
	return string(out)
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	var n int
	if _, err := fmt.Sscan(s, &n); err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return n
}
