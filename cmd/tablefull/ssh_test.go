package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/remote/agent"
	"github.com/tablefull/tablefull/sources/netns"
)

// sshServer is an OpenSSH server started by the test inside ns, with key
// authentication only and a known_hosts of its own.
type sshServer struct {
	t          *testing.T
	ns         *netns.NS
	dir, cfg   string
	clientCfg  string
	cmd        *exec.Cmd
	listenAddr string
}

func startSSHD(t *testing.T, ns *netns.NS) *sshServer {
	t.Helper()
	for _, tool := range []string{"/usr/sbin/sshd", "ssh", "ssh-keygen"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s (openssh-server, openssh-client)", tool)
		}
	}
	dir := t.TempDir()
	s := &sshServer{t: t, ns: ns, dir: dir, listenAddr: "127.0.0.1:2222"}
	keygen := func(path string) {
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", path).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v %s", err, out)
		}
	}
	keygen(filepath.Join(dir, "host_key"))
	keygen(filepath.Join(dir, "client_key"))
	pub, _ := os.ReadFile(filepath.Join(dir, "client_key.pub"))
	os.WriteFile(filepath.Join(dir, "authorized_keys"), pub, 0o600)
	hostPub, _ := os.ReadFile(filepath.Join(dir, "host_key.pub"))
	os.WriteFile(filepath.Join(dir, "known_hosts"), []byte("[127.0.0.1]:2222 "+string(hostPub)), 0o600)
	s.cfg = filepath.Join(dir, "sshd_config")
	os.WriteFile(s.cfg, []byte(fmt.Sprintf(`Port 2222
ListenAddress 127.0.0.1
HostKey %[1]s/host_key
AuthorizedKeysFile %[1]s/authorized_keys
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
StrictModes no
UsePAM no
PidFile %[1]s/sshd.pid
`, dir)), 0o600)
	s.clientCfg = filepath.Join(dir, "ssh_config")
	os.WriteFile(s.clientCfg, []byte(fmt.Sprintf(`Host 127.0.0.1
  IdentityFile %[1]s/client_key
  UserKnownHostsFile %[1]s/known_hosts
  IdentitiesOnly yes
`, dir)), 0o600)
	os.MkdirAll("/run/sshd", 0o755)
	s.start()
	t.Cleanup(s.stop)
	return s
}

func (s *sshServer) start() {
	s.cmd = s.ns.Command("/usr/sbin/sshd", "-D", "-e", "-f", s.cfg)
	if err := s.cmd.Start(); err != nil {
		s.t.Fatalf("sshd: %v", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if err := s.ns.Command("sh", "-c", "exec 3<>/dev/tcp/127.0.0.1/2222").Run(); err == nil {
			return
		}
		if out, _ := s.ns.Output("ss", "-Hltn", "sport = :2222"); strings.Contains(out, "2222") {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.t.Fatal("sshd did not start listening")
}

// stop kills the listener and every session it started (its
// descendants, by PID: no other sshd's session is touched).
func (s *sshServer) stop() {
	if s.cmd != nil && s.cmd.Process != nil {
		clitest.KillTree(s.cmd.Process.Pid)
		s.cmd.Wait()
	}
}

// TestSSHAgent: the console's feed over the real ssh client and a real
// sshd shows the remote side's numbers (a namespace holding a known number
// of entries); when sshd and the agent die the host reports the
// disconnection and recovers once sshd is back.
func TestSSHAgent(t *testing.T) {
	clitest.NeedKernel(t)
	ns := clitest.LabNS(t)
	const entries = 29
	holdEntries(t, ns, entries)
	srv := startSSHD(t, ns)
	exe, _ := os.Executable()
	argv, err := agent.SSHArgv("root@"+srv.listenAddr, "env", "TABLEFULL_AS_MAIN=1", exe, "agent")
	if err != nil {
		t.Fatal(err)
	}
	argv = append([]string{"ip", "netns", "exec", ns.Name, "ssh", "-F", srv.clientCfg}, argv[1:]...)
	p := &agent.Process{Argv: argv, Name: "lab", MinBackoff: 200 * time.Millisecond, MaxBackoff: 500 * time.Millisecond, Hint: agent.FullTableHint}
	p.Start(200 * time.Millisecond)
	defer p.Stop()

	s := nextSample(t, p)
	if s.Conntrack.Count < entries || s.Conntrack.Count > entries+6 {
		t.Errorf("remote count %d, want about %d entries (+ the ssh connection)", s.Conntrack.Count, entries)
	}
	if h := p.Host(); h.Source != "agent" || h.CPUs == 0 {
		t.Errorf("host %+v, want the agent's header", h)
	}

	srv.stop() // sshd and the session, and so the agent, die
	if err := nextError(t, p); !errors.Is(err, agent.ErrDisconnected) || !strings.Contains(err.Error(), "may not get in") {
		t.Errorf("after killing sshd: %v, want a disconnection with the full-table hint", err)
	}
	srv.start()
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
	srv := startSSHD(t, ns)
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
	argv, _ := agent.SSHArgv("root@"+srv.listenAddr, "sh -c '"+dep.Script()+"'")
	argv = append([]string{"ip", "netns", "exec", ns.Name, "ssh", "-F", srv.clientCfg}, argv[1:]...)
	for round := range 2 { // the second round finds the cached copy
		p := &agent.Process{Argv: argv, MinBackoff: time.Hour, Handshake: dep.Handshake}
		p.Start(200 * time.Millisecond)
		s := nextSample(t, p)
		p.Stop()
		if s.Time.IsZero() {
			t.Fatalf("round %d: no sample", round)
		}
		if st, err := os.Stat(cached); err != nil || st.Size() != size {
			t.Fatalf("round %d: cached agent %v", round, err)
		}
	}
}
