package tune

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/sources/netns"
)

// incident is a way to fill a namespace's table: it starts the load and
// returns the cap it pins.
type incident struct {
	name  string
	cap   uint64
	start func(t *testing.T, ns *netns.NS)
}

// pin lowers the cap to the incident's, starts it in a new namespace and
// returns once the namespace's table is pinned (the cap restored and the
// namespace gone when the test ends). extra, when set, runs on the
// namespace before the load (a ruleset of its own).
func (inc incident) pin(t *testing.T, extra func(ns *netns.NS)) *netns.NS {
	t.Helper()
	clitest.LowerMax(t, inc.cap)
	ns := clitest.LabNS(t)
	if extra != nil {
		extra(ns)
	}
	inc.start(t, ns)
	clitest.WaitPinned(t, ns, inc.cap, 20*time.Second)
	return ns
}

// panelIncidents are the three incidents of the tuning panel's tests: a
// client without keep-alive, DNS churn through glibc's resolver, and a
// pool of persistent connections that outgrows the cap.
var panelIncidents = []incident{
	{"redis-k0", 500, func(t *testing.T, ns *netns.NS) {
		clitest.NeedKernel(t, "redis-server", "redis-benchmark")
		clitest.StartUntilEnd(t, ns.Command("redis-server", "--port", "6391", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"))
		time.Sleep(300 * time.Millisecond)
		clitest.StartUntilEnd(t, ns.Command("redis-benchmark", "-p", "6391", "-k", "0", "-c", "8", "-n", "100000000", "-t", "ping_inline", "-q"))
	}},
	{"dns", 400, func(t *testing.T, ns *netns.NS) {
		clitest.NeedKernel(t, "dnsmasq", "python3", "unshare")
		clitest.ResolveAt(t, ns, t.TempDir(), 200, 3*time.Minute)
	}},
	{"pool", 400, func(t *testing.T, ns *netns.NS) {
		clitest.NeedKernel(t, "python3")
		h, err := ns.Hold("127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { h.Close() })
		clitest.StartUntilEnd(t, ns.Command("python3", "-c", poolScript, h.Addr(), "1500"))
	}},
}

// poolScript opens argv[2] connections to argv[1] from 16 threads and
// keeps every one, retrying a connect the full table refused: a pool that
// outgrows the cap.
const poolScript = `import socket, sys, threading, time
host, port = sys.argv[1].rsplit(":", 1)
held = []
def grow(n):
    while n > 0:
        try:
            held.append(socket.create_connection((host, int(port)), timeout=3)); n -= 1
        except OSError:
            pass
for _ in range(16):
    threading.Thread(target=grow, args=(int(sys.argv[2]) // 16,), daemon=True).start()
time.sleep(600)
`

// TestPanelFreesNamespaceFromHost: the console on --netns NS from the
// host, t during the pin, then a and y up to three times: each incident's
// table is freed, the DNS churn's (UDP, real dnsmasq and glibc) as the
// TCP ones' (the global cap applied from the host), and u restores the
// cap.
func TestPanelFreesNamespaceFromHost(t *testing.T) {
	for _, inc := range panelIncidents {
		t.Run(inc.name, func(t *testing.T) {
			clitest.NeedKernel(t, "tmux", "conntrack")
			ns := inc.pin(t, nil)
			s := clitest.StartTmux(t, 200, 50, "", "--netns", ns.Name, "--interval", "500ms", "--state-dir", filepath.Join(t.TempDir(), "state"))
			s.WaitFor("TABLE FULL")
			s.Keys("t")
			screen := s.WaitFor("tuning", "nf_conntrack_max")
			if strings.Contains(screen, "nothing to propose") || strings.Contains(screen, "room to spare") {
				t.Fatalf("pinned, and the panel proposes nothing:\n%s", screen)
			}
			clitest.ApplyUntilFree(t, s, ns)
			clitest.UndoRestores(t, s, strconv.FormatUint(inc.cap, 10))
			s.Keys("Escape")
			s.Keys("q")
			s.WaitFor("EXIT=0")
		})
	}
}

// hostCommandRe finds the command the panel gives for the global knobs.
var hostCommandRe = regexp.MustCompile(`on the host run: (tablefull tune(?: --set \S+)+ --yes)`)

// TestPanelInsideNamespaceGivesHostCommand: the console inside the
// namespace (ip netns exec), and over --via running the agent as root in
// it, cannot write the global cap: the panel proposes it with the exact
// host command, the test runs that command on the host as the operator
// would, applies the rest with a, and the table is free within three
// steps.
func TestPanelInsideNamespaceGivesHostCommand(t *testing.T) {
	exe, _ := os.Executable()
	for _, c := range []struct {
		name string
		argv func(ns, state string) []string
	}{
		{"inside", func(ns, state string) []string {
			return []string{"env", "TABLEFULL_AS_MAIN=1", "ip", "netns", "exec", ns, exe, "--interval", "500ms", "--state-dir", state}
		}},
		{"via", func(ns, state string) []string {
			return []string{"env", "TABLEFULL_AS_MAIN=1", exe, "--interval", "500ms", "--via", fmt.Sprintf("'ip netns exec %s %s agent --state-dir %s'", ns, exe, state)}
		}},
	} {
		for _, inc := range panelIncidents {
			t.Run(c.name+"/"+inc.name, func(t *testing.T) {
				clitest.NeedKernel(t, "tmux", "conntrack")
				ns := inc.pin(t, nil)
				hostState := filepath.Join(t.TempDir(), "host")
				s := clitest.StartTmuxArgv(t, 200, 50, c.argv(ns.Name, filepath.Join(t.TempDir(), "ns")))
				s.WaitFor("TABLE FULL")
				s.Keys("t")
				followHostCommand(t, s, ns, hostState)
				capMax := strconv.FormatUint(inc.cap, 10)
				if code, out := clitest.TuneIn(t, nil, "--undo", "--state-dir", hostState); code != 0 || clitest.ReadSysctl(t, nil, knob.Max) != capMax {
					t.Errorf("the host's undo: exit %d %s; max %s", code, out, clitest.ReadSysctl(t, nil, knob.Max))
				}
				s.Keys("Escape")
				s.Keys("q")
				s.WaitFor("EXIT=0")
			})
		}
	}
}

// followHostCommand runs the host command the open panel gives, applies
// the namespace's own knobs with a, and again while the table is pinned,
// at most three steps.
func followHostCommand(t *testing.T, s *clitest.Tmux, ns *netns.NS, hostState string) {
	t.Helper()
	for step := 1; step <= 3; step++ {
		screen := strings.Join(strings.Fields(s.WaitFor("on the host run: tablefull tune")), " ")
		m := hostCommandRe.FindStringSubmatch(screen)
		if m == nil || !strings.Contains(m[1], knob.Max+"=") {
			t.Fatalf("no host command for the cap:\n%s", screen)
		}
		args := append(strings.Fields(m[1])[2:], "--state-dir", hostState) // after "tablefull tune"
		if code, out := clitest.TuneIn(t, nil, args...); code != 0 {
			t.Fatalf("%s: exit %d: %s", m[1], code, out)
		}
		s.Keys("a")                        // the namespace's own knobs, when the plan has any
		time.Sleep(500 * time.Millisecond) // the answer to this a, not an older message
		if s.WaitForAny("y/n", "nothing to apply") == "y/n" {
			s.Keys("y")
			s.WaitFor("apply done")
		}
		if clitest.Freed(t, s, ns, 45*time.Second) {
			t.Logf("freed in %d steps at %s", step, clitest.ReadSysctl(t, nil, knob.Max))
			return
		}
	}
	t.Fatalf("not freed within 3 steps:\n%s", s.Capture(false))
}
