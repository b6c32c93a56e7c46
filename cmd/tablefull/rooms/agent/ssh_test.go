package agent

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/remote/agent"
)

// TestSSHAgent: the console's feed over the real ssh client and a real
// sshd shows the remote side's numbers (a namespace holding a known number
// of entries); when sshd and the agent die the host reports the
// disconnection and recovers once sshd is back.
func TestSSHAgent(t *testing.T) {
	clitest.NeedKernel(t)
	ns := clitest.LabNS(t)
	const entries = 29
	clitest.HoldEntries(t, ns, entries)
	srv := clitest.StartSSHD(t, ns)
	exe, _ := os.Executable()
	argv, err := agent.SSHArgv("root@"+srv.ListenAddr, "env", "TABLEFULL_AS_MAIN=1", exe, "agent")
	if err != nil {
		t.Fatal(err)
	}
	argv = append([]string{"ip", "netns", "exec", ns.Name, "ssh", "-F", srv.ClientCfg}, argv[1:]...)
	p := &agent.Process{Argv: argv, Name: "lab", MinBackoff: 200 * time.Millisecond, MaxBackoff: 500 * time.Millisecond, Hint: agent.FullTableHint}
	p.Start(200 * time.Millisecond)
	defer p.Stop()

	s := clitest.NextSample(t, p)
	if s.Conntrack.Count < entries || s.Conntrack.Count > entries+6 {
		t.Errorf("remote count %d, want about %d entries (+ the ssh connection)", s.Conntrack.Count, entries)
	}
	if h := p.Host(); h.Source != "agent" || h.CPUs == 0 {
		t.Errorf("host %+v, want the agent's header", h)
	}

	srv.Stop() // sshd and the session, and so the agent, die
	if err := nextError(t, p); !errors.Is(err, agent.ErrDisconnected) || !strings.Contains(err.Error(), "may not get in") {
		t.Errorf("after killing sshd: %v, want a disconnection with the full-table hint", err)
	}
	srv.Start()
	var back model.Sample
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if s, err := p.Next(); err == nil {
			back = s
			break
		}
	}
	if back.Time.IsZero() || back.Conntrack.Count < entries {
		t.Errorf("no sample after sshd came back: %+v", back.Conntrack)
	}
}

// nextError waits for the feed's next error, skipping samples.
func nextError(t *testing.T, p *agent.Process) error {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := p.Next(); err != nil {
			return err
		}
	}
	t.Fatal("no disconnection reported")
	return nil
}

// TestSSHDeploy: a remote without tablefull gets this binary over the same
// session, checksum verified, cached per user, and then streams.
func TestSSHDeploy(t *testing.T) {
	clitest.NeedKernel(t)
	ns := clitest.LabNS(t)
	srv := clitest.StartSSHD(t, ns)
	dep, err := agent.NewDeployer()
	if err != nil {
		t.Fatal(err)
	}
	sum, size := thisBinary(t)
	home, _ := os.UserHomeDir()
	cached := filepath.Join(home, ".cache", "tablefull", "tablefull-"+sum)
	os.Remove(cached)
	t.Cleanup(func() { os.Remove(cached) })
	// PATH without tablefull on the remote: the script must deploy.
	argv, _ := agent.SSHArgv("root@"+srv.ListenAddr, "sh -c '"+dep.Script()+"'")
	argv = append([]string{"ip", "netns", "exec", ns.Name, "ssh", "-F", srv.ClientCfg}, argv[1:]...)
	for round := range 2 { // the second round finds the cached copy
		p := &agent.Process{Argv: argv, MinBackoff: time.Hour, Handshake: dep.Handshake}
		p.Start(200 * time.Millisecond)
		s := clitest.NextSample(t, p)
		p.Stop()
		if s.Time.IsZero() {
			t.Fatalf("round %d: no sample", round)
		}
		if st, err := os.Stat(cached); err != nil || st.Size() != size {
			t.Fatalf("round %d: cached agent %v", round, err)
		}
	}
}
