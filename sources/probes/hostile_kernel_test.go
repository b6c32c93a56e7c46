package probes

import (
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/tablefull/tablefull/sources/netns/nstest"
)

// TestProbesAfterAScopeThatExits: a scope sends datagrams to 5,000
// destinations and exits, its cgroup removed before the probes are read:
// the read stays within the attribution budget, names the flows by the
// process it can no longer find a cgroup for, says what the full map
// could not count, and the gone cgroup is never walked for again.
func TestProbesAfterAScopeThatExits(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("needs python3")
	}
	ns, _ := nstest.Tracked(t)
	w, err := Load("/proc", ns.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if w.limit != "" {
		t.Skipf("the UDP hooks are off: %s", w.limit)
	}
	tag := strconv.Itoa(os.Getpid())
	cg := nstest.Cgroup(t, "tablefull-test-"+tag+".slice/burst-"+tag+".scope")
	cmd := ns.Command("python3", "-c", burstScript, "127.0.0.1", "5000")
	out, _ := cmd.StdoutPipe()
	nstest.StartIn(t, cg, cmd)
	buf := make([]byte, 4)
	if _, err := out.Read(buf); err != nil || string(buf) != "sent" {
		t.Fatalf("burst: %q %v", buf, err)
	}
	cmd.Wait()
	cg.Close()
	for i := 0; i < 50 && os.Remove(cg.Name()) != nil; i++ {
		time.Sleep(20 * time.Millisecond)
	}
	began := time.Now()
	r := w.Read()
	if took := time.Since(began); took > 3*time.Second { // one walk, whatever the ids; well under 0.5 s idle
		t.Errorf("the read took %s", took)
	}
	if r.Lost == 0 {
		t.Errorf("5,000 flows into a map of 4,096 and nothing said lost: %+v", r.OtherOpened)
	}
	if len(w.unknown) == 0 {
		t.Fatalf("the gone cgroup is not remembered as unknown")
	}
	for id := range w.unknown {
		if walked := w.resolve([]uint64{id}); walked != 0 {
			t.Errorf("the gone cgroup %d walked for again", id)
		}
	}
}

// burstScript sends one datagram to each of argv[2] ports of argv[1],
// from a socket of its own each, prints "sent" and exits.
const burstScript = `import socket, sys
for port in range(20000, 20000 + int(sys.argv[2])):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.sendto(b"x", (sys.argv[1], port))
    s.close()
print("sent", flush=True)
`
