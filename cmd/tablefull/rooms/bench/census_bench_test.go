//go:build bench

package bench

import (
	"bytes"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ti-mo/conntrack"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/sources"
	"github.com/tablefull/tablefull/sources/netns"
)

// measure runs cmd and returns its wall time and peak RSS in kB, polling
// its VmHWM (a forked child's rusage would count our own memory).
func measure(t *testing.T, cmd *exec.Cmd) (time.Duration, int64) {
	t.Helper()
	wall, hwm, _ := measureMem(t, cmd)
	return wall, hwm
}

// measureMem is measure with the peak of the private part of the RSS
// (RssAnon, polled): the memory the work costs, where the rest is the
// binary's pages, shared with every process that runs it.
func measureMem(t *testing.T, cmd *exec.Cmd) (wall time.Duration, hwm, anon int64) {
	t.Helper()
	lines := 0
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 64<<10)
		for {
			n, err := out.Read(buf)
			lines += bytes.Count(buf[:n], []byte("\n"))
			if err != nil {
				return
			}
		}
	}()
	for polling := true; polling; {
		select {
		case <-done:
			polling = false
		case <-time.After(5 * time.Millisecond):
		}
		hwm, anon = max(hwm, vmHWM(cmd.Process.Pid)), max(anon, clitest.StatusField(cmd.Process.Pid, "RssAnon:"))
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v: %v", cmd.Args, err)
	}
	return time.Since(start), hwm, anon
}

func vmHWM(pid int) int64 { return clitest.StatusField(pid, "VmHWM:") }

// TestRatioCensus fills a namespace with 262,144 entries through netlink
// and compares the census with conntrack -L on the same table (make
// bench). Goals: wall ≤ 0.5×, peak RSS ≤ 12 MB, equal per-state counts.
func TestRatioCensus(t *testing.T) {
	clitest.NeedKernel(t, "conntrack")
	const n = 262144
	ns := fullTable(t, n)
	if p := os.Getenv("CENSUS_CPUPROFILE"); p != "" {
		f, _ := os.Create(p)
		pprof.StartCPUProfile(f)
		ns.Do(func() error { _, err := sources.CensusDump{}.Run(10); return err })
		pprof.StopCPUProfile()
	}

	peerWall, peerRSS := measure(t, ns.Command("conntrack", "-L"))
	argv, env := consoleArgv(t) // the program make bench built, not this test binary
	if len(env) > 0 {
		t.Skip("needs the built binary (make bench builds it): the test binary's own footprint is not the program's")
	}
	ourWall, ourRSS, ourAnon := measureMem(t, ns.Command(argv[0], "census", "--json"))
	c := clitest.CensusIn(t, ns)
	goal(t, ourWall.Seconds() <= 0.5*peerWall.Seconds(), "census of %d entries %s, conntrack -L %s: %.2f× (goal ≤ 0.5×)", n, ourWall.Round(time.Millisecond),
		peerWall.Round(time.Millisecond), ourWall.Seconds()/peerWall.Seconds())
	goal(t, ourRSS <= 12*1024, "census peak RSS %.1f MB (private %.1f MB; %s), conntrack -L %.1f MB (goal ≤ 12 MB)", float64(ourRSS)/1024, float64(ourAnon)/1024,
		startupFloor(t, argv[0]), float64(peerRSS)/1024)
	for _, state := range []string{"ESTABLISHED", "TIME_WAIT"} {
		out, err := ns.Output("sh", "-c", "conntrack -L -p tcp --state "+state+" 2>/dev/null | wc -l")
		if err != nil {
			t.Fatal(err)
		}
		peer, _ := strconv.Atoi(strings.TrimSpace(out))
		verdict := "equal"
		if peer != c.TCPState[state] {
			verdict = "DIFFERENT"
		}
		fmt.Printf("    %s: census %d, conntrack -L %d (%s)\n", state, c.TCPState[state], peer, verdict)
	}
}

// fullTable is a namespace holding n TCP entries, half ESTABLISHED and
// half TIME_WAIT, inserted through netlink with the cap raised above n
// (restored after): a full table at the proportions a big host has.
func fullTable(t *testing.T, n int) *netns.NS {
	t.Helper()
	b, _ := os.ReadFile(clitest.MaxPath)
	var orig uint64
	fmt.Sscan(string(b), &orig)
	if orig < uint64(n)+1000 {
		t.Cleanup(func() { os.WriteFile(clitest.MaxPath, b, 0o644) })
		os.WriteFile(clitest.MaxPath, []byte(fmt.Sprint(n+1000)), 0o644)
	}
	ns := clitest.LabNS(t)
	var flows []conntrack.Flow
	for i := range n {
		f := conntrack.NewFlow(6, conntrack.StatusConfirmed|conntrack.StatusAssured,
			netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}), netip.MustParseAddr("10.255.0.1"),
			uint16(1024+i%60000), uint16(80+i%4), 600, 0)
		f.ProtoInfo.TCP = &conntrack.ProtoInfoTCP{State: uint8(3 + 4*(i%2))} // ESTABLISHED / TIME_WAIT
		flows = append(flows, f)
	}
	start := time.Now()
	if err := ns.Insert(flows); err != nil {
		t.Fatal(err)
	}
	flows = nil
	runtime.GC()
	debug.FreeOSMemory() // a child's peak RSS starts from ours at fork
	fmt.Printf("    inserted %d entries in %s\n", n, time.Since(start).Round(time.Millisecond))
	return ns
}
