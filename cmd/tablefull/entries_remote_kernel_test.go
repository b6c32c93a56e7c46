package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model/entry"
	"github.com/tablefull/tablefull/model/tuning"
	"github.com/tablefull/tablefull/remote/agent"
	"github.com/tablefull/tablefull/sources"
	"github.com/tablefull/tablefull/sources/netns"
	"github.com/tablefull/tablefull/sources/nsenter"
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
	needKernel(t, "conntrack", "cat")
	ns := labNS(t)
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

	insertUDP(t, ns, 55, 20)
	agentPID := strings.TrimSpace(pgrep(t, "-f", "^"+exe+" agent --state-dir "+agentDir))
	exec.Command("kill", "-STOP", agentPID).Run() // it will have the request, not yet done
	done := make(chan error, 1)
	go func() { _, err := remoteEntries.Delete(udp("55"), false); done <- err }()
	time.Sleep(500 * time.Millisecond) // the relay hands the request over
	sh := strings.TrimSpace(pgrep(t, "-f", marker))
	for _, cat := range strings.Fields(pgrep(t, "-P", strings.Fields(sh)[0], "-x", "cat")) {
		exec.Command("kill", "-KILL", cat).Run() // the transport dies
	}
	if err := <-done; !errors.Is(err, tuning.ErrLinkCut) {
		t.Errorf("the console was told %v, want that the link was cut", err)
	}
	exec.Command("kill", "-CONT", agentPID).Run()
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end) && syscall.Kill(mustAtoi(t, agentPID), 0) == nil; time.Sleep(100 * time.Millisecond) {
	}
	// The cut agent ends: it took the request first and deleted and
	// journalled all of it, or found its stream gone first and did
	// nothing; never a part, never a deletion not journalled.
	switch left, n := udpLeft(t, ns, 55), journalLines(agentDir); {
	case left == 0 && n == 2:
		t.Logf("the agent deleted and journalled the request it held when the link was cut")
	case left == 20 && n == 1:
		t.Logf("the agent ended on its cut stream before it took the request: nothing deleted")
	default:
		t.Errorf("after the cut: %d of 20 entries left, %d deletions journalled: a part, or one not journalled", left, n)
	}
	if syscall.Kill(mustAtoi(t, agentPID), 0) == nil {
		time.Sleep(time.Second)
		if syscall.Kill(mustAtoi(t, agentPID), 0) == nil {
			t.Errorf("the cut agent %s is still running", agentPID)
		}
	}
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
