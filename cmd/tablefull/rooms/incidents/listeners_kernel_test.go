package incidents

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/units"
	"github.com/tablefull/tablefull/model/verdict"
	"github.com/tablefull/tablefull/sources/netns"
	"github.com/tablefull/tablefull/sources/netns/nstest"
)

// testPodCgroup makes a cgroup shaped as a containerd pod's, with the
// pod's slice name given.
func testPodCgroup(t *testing.T, podSlice string) *os.File {
	return clitest.CgroupAt(t, filepath.Join("kubepods.slice", "kubepods-besteffort.slice", podSlice, "cri-containerd-0123456789abcdef.scope"))
}

// slowListenScript listens with a backlog of 4 and never accepts.
const slowListenScript = `import socket, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(4)
print(s.getsockname()[1], flush=True)
time.sleep(600)
`

// TestListenOverflowNamesTheListener: two listeners in a namespace, one
// accepting at once, one (a program in a unit of its own) never accepting
// behind a backlog of 4; connections to both. LISTEN OVERFLOW names the
// slow one, with its queue against the backlog it asked for, and not the
// other.
func TestListenOverflowNamesTheListener(t *testing.T) {
	clitest.NeedKernel(t, "python3")
	ns, err := netns.Create(fmt.Sprintf("tft-lq-%d", os.Getpid()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ns.Delete() })
	fast := nstest.Serve(t, ns, "127.0.0.1:0", nil)
	cg := clitest.UnitCgroup(t, fmt.Sprintf("tablefull-test-slow-%d.service", os.Getpid()))
	slow := ns.Command("python3", "-c", slowListenScript)
	out, _ := slow.StdoutPipe()
	clitest.StartIn(t, cg, slow)
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	port, _ := strconv.Atoi(strings.TrimSpace(line))
	slowAddr := fmt.Sprintf("127.0.0.1:%d", port)

	feed := clitest.StartClassFeed(t, ns, 500*time.Millisecond)
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	go func() { // both listeners keep being asked, from the namespace's thread
		var held []net.Conn
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		ns.Do(func() error {
			for {
				select {
				case <-stop:
					return nil
				default:
				}
				for _, a := range []string{fast, slowAddr} {
					if c, err := net.DialTimeout("tcp", a, 200*time.Millisecond); err == nil && len(held) < 100 {
						held = append(held, c)
					} else if err == nil {
						c.Close()
					}
				}
			}
		})
	}()
	f := feed.Until(t, 20*time.Second, func(f diagnose.Frame) bool {
		return f.Verdicts[0].Kind == verdict.ListenOverflow || hasVerdict(f, verdict.ListenOverflow)
	})
	ls := f.Sample.Listeners
	if ls == nil || len(ls.Pressed) != 1 {
		t.Fatalf("listeners %+v: want the slow one alone", ls)
	}
	p := ls.Pressed[0]
	want := fmt.Sprintf("%s of python3 (pid %d, tablefull-test-slow-%d.service): 5 waiting, backlog 4 (as asked; somaxconn %s)",
		slowAddr, slow.Process.Pid, os.Getpid(), units.Int(ls.Somaxconn))
	if got := p.String(ls.Somaxconn); got != want {
		t.Errorf("pressed %q, want %q", got, want)
	}
	for _, v := range f.Verdicts {
		if v.Kind == verdict.ListenOverflow && !strings.Contains(v.Text(), "fullest: "+want) {
			t.Errorf("evidence %q does not name it", v.Text())
		}
	}
	// The next samples name it from what the first found (looked up once).
	for range 3 {
		f = feed.An.Add(clitest.NextSample(t, feed.P))
		if ls := f.Sample.Listeners; ls != nil && (len(ls.Pressed) != 1 || ls.Pressed[0].String(ls.Somaxconn) != want) {
			t.Errorf("a later sample's listeners %+v, want %s", ls.Pressed, want)
		}
	}
}

func hasVerdict(f diagnose.Frame, k verdict.Kind) bool {
	for _, v := range f.Verdicts {
		if v.Kind == k {
			return true
		}
	}
	return false
}
