package tune

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/sources/netns"
)

// TestApplyOverCutSSH: the console over --ssh (the real client, through
// a wrapper that reaches the test's sshd and runs this binary as the
// agent), an apply of two namespace knobs whose session is cut while the
// agent is in the middle of the request: the host is left with both
// changes and their undo record or with neither, never one, and the
// console says which once the link is back; u then restores both.
func TestApplyOverCutSSH(t *testing.T) {
	clitest.NeedKernel(t, "tmux", "conntrack", "redis-server", "redis-benchmark")
	// The management path is not tracked (as deploy/nftables does for
	// it): the session and its reconnection get in while the table is full.
	ns := panelIncidents[0].pin(t, func(ns *netns.NS) {
		if err := ns.Nft(`table inet mgmt {
	chain pre { type filter hook prerouting priority -300; tcp dport 2222 notrack; tcp sport 2222 notrack; }
	chain out { type filter hook output priority -300; tcp dport 2222 notrack; tcp sport 2222 notrack; }
}`); err != nil {
			t.Fatal(err)
		}
	})
	srv := clitest.StartSSHD(t, ns)
	exe, _ := os.Executable()
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	wrapper := fmt.Sprintf(`#!/bin/bash
args=("$@"); n=${#args[@]}
echo "$@" >> %[5]s/ssh.log
exec ip netns exec %[1]s /usr/bin/ssh -F %[2]s "${args[@]:0:n-2}" env TABLEFULL_AS_MAIN=1 %[3]s agent --state-dir %[4]s 2>>%[5]s/ssh.log
`, ns.Name, srv.ClientCfg, exe, state, dir)
	if err := os.WriteFile(filepath.Join(dir, "ssh"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	s := clitest.StartTmux(t, 200, 50, "PATH="+dir+":$PATH", "--ssh", "root@"+srv.ListenAddr, "--interval", "500ms")
	t.Cleanup(func() {
		if t.Failed() {
			b, _ := os.ReadFile(filepath.Join(dir, "ssh.log"))
			t.Logf("ssh.log:\n%s", b)
		}
	})
	s.WaitFor("TABLE FULL")
	s.Keys("t")
	s.WaitFor("tuning", "on the host run")
	s.Keys("Down", "Down", "Enter", "C-u", "30", "Enter") // two namespace knobs, set by hand
	s.Keys("Down", "Enter", "C-u", "8192", "Enter")
	s.WaitFor("→ 30", "→ 8192")
	// the agent, under the test's own sshd; the ssh client, under the
	// console in the pane: each found in the tree the test started
	agents := clitest.ProcsUnder(srv.Cmd.Process.Pid, func(argv []string) bool {
		return len(argv) >= 4 && argv[0] == exe && argv[1] == "agent" && argv[2] == "--state-dir" && argv[3] == state
	})
	if len(agents) != 1 {
		t.Fatalf("agents under the test's sshd: %v", agents)
	}
	pid := agents[0]
	syscall.Kill(pid, syscall.SIGSTOP) // in the middle of the request: it has it, not yet done
	s.Keys("a")
	s.WaitFor("y/n")
	s.Keys("y")
	time.Sleep(500 * time.Millisecond)
	clitest.SignalAll(clitest.ProcsUnder(s.PanePID(), func(argv []string) bool { // the transport dies
		return len(argv) >= 3 && argv[0] == "/usr/bin/ssh" && argv[1] == "-F" && argv[2] == srv.ClientCfg
	}), syscall.SIGKILL)
	time.Sleep(200 * time.Millisecond)
	syscall.Kill(pid, syscall.SIGCONT)
	screen := strings.Join(strings.Fields(s.WaitFor("the link was cut during the apply: back now")), " ")
	tw, somax := clitest.ReadSysctl(t, ns, knob.TimeWait), clitest.ReadSysctl(t, ns, knob.Somaxconn)
	_, undoErr := os.Stat(filepath.Join(state, "undo.json"))
	switch {
	case tw == "30" && somax == "8192":
		if undoErr != nil || !strings.Contains(screen, "all 2 changes hold") {
			t.Errorf("applied, but undo record %v, screen:\n%s", undoErr, screen)
		}
		s.Keys("u")
		s.WaitFor("undo the last apply? y/n")
		s.Keys("y")
		s.WaitFor("undo done")
		if tw, somax := clitest.ReadSysctl(t, ns, knob.TimeWait), clitest.ReadSysctl(t, ns, knob.Somaxconn); tw != "120" || somax != "4096" {
			t.Errorf("after u: TIME_WAIT %s, somaxconn %s", tw, somax)
		}
	case tw == "120" && somax == "4096":
		if !strings.Contains(screen, "nothing was changed") {
			t.Errorf("unchanged, but the screen says:\n%s", screen)
		}
	default:
		t.Fatalf("half applied: TIME_WAIT %s, somaxconn %s", tw, somax)
	}
	t.Logf("TIME_WAIT %s, somaxconn %s: %s", tw, somax, screen[strings.Index(screen, "the link was cut"):][:80])
	s.Keys("Escape")
	s.Keys("q")
	s.WaitFor("EXIT=0")
}
