package tune

import (
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/tuning"
	"github.com/tablefull/tablefull/remote/agent"
)

// TestTuneThroughAgent: the console's tuning reaches an agent (here in a
// namespace, as over SSH): it reads the knobs there, applies with the
// user's confirmation, reads back, undoes; an agent that is not root
// refuses and changes nothing.
func TestTuneThroughAgent(t *testing.T) {
	clitest.NeedKernel(t)
	t.Setenv("TABLEFULL_AS_MAIN", "1")
	ns := clitest.LabNS(t)
	argv, err := agent.NetnsArgv(ns.Name)
	if err != nil {
		t.Fatal(err)
	}
	argv = append(argv, "--state-dir", t.TempDir())
	p := &agent.Process{Argv: argv, MinBackoff: time.Hour}
	p.Start(500 * time.Millisecond)
	defer p.Stop()
	clitest.NextSample(t, p) // connected
	tu := &agent.RemoteTuner{P: p}
	k, err := tu.Read()
	if err != nil || k.Current[knob.TimeWait] != "120" {
		t.Fatalf("read through the agent: %v %v", k, err)
	}
	if k.Global {
		t.Errorf("an agent in a child namespace says it can write global knobs")
	}
	res, err := tu.Apply([]tuning.Change{{Key: knob.TimeWait, Proposed: "30"}}, 0)
	if err != nil || len(res) != 1 || !res[0].Verified {
		t.Fatalf("apply through the agent: %+v %v", res, err)
	}
	if got := clitest.ReadSysctl(t, ns, "net.netfilter.nf_conntrack_tcp_timeout_time_wait"); got != "30" {
		t.Errorf("the namespace reads %s", got)
	}
	if _, err := tu.Undo(); err != nil {
		t.Fatalf("undo through the agent: %v", err)
	}
	if got := clitest.ReadSysctl(t, ns, "net.netfilter.nf_conntrack_tcp_timeout_time_wait"); got != "120" {
		t.Errorf("after undo the namespace reads %s", got)
	}
	if _, err := tu.Apply([]tuning.Change{{Key: knob.Max, Proposed: "8192"}}, 0); err == nil || !strings.Contains(err.Error(), "child network namespace") {
		t.Errorf("global knob through an agent in a child namespace: %v", err)
	}

	// Not root: read-only.
	bin := clitest.NobodyBinary(t)
	nobody := &agent.Process{Argv: []string{"ip", "netns", "exec", ns.Name, "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", bin, "agent"}, MinBackoff: time.Hour}
	nobody.Start(500 * time.Millisecond)
	defer nobody.Stop()
	clitest.NextSample(t, nobody)
	ntu := &agent.RemoteTuner{P: nobody}
	if _, err := ntu.Apply([]tuning.Change{{Key: knob.TimeWait, Proposed: "30"}}, 0); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("an unprivileged agent applied: %v", err)
	}
	if got := clitest.ReadSysctl(t, ns, "net.netfilter.nf_conntrack_tcp_timeout_time_wait"); got != "120" {
		t.Errorf("the unprivileged agent changed the namespace: %s", got)
	}
}
