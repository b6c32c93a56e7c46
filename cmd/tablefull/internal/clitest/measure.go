package clitest

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/remote/stream"
	"github.com/tablefull/tablefull/sources/netns"
)

// FirstDropLatency is the time from the first packet a table at real
// proportions drops to the agent's sample that says it, the agent run
// as argv with env: max = buckets = 512, filled by fresh connections,
// the agent in the table's namespace at 1 s, the drop seen by the test
// reading the namespace's own counters every millisecond.
func FirstDropLatency(t *testing.T, argv, env []string) time.Duration {
	t.Helper()
	LowerMax(t, 512)
	SetBuckets(t, 512)
	ns := LabNS(t)
	srv := &netns.Server{Body: []byte("object\n")}
	if err := ns.Serve("127.0.0.1:18080", srv); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	agent := ns.Command(argv[0], append(argv[1:], "agent", "--interval", "1s")...)
	agent.Env = append(os.Environ(), env...)
	out, err := agent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	in, _ := agent.StdinPipe() // the agent ends when its stdin closes
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { in.Close(); agent.Wait() }()

	var firstDrop atomic.Int64 // unix nanoseconds; 0: none yet
	stop := make(chan struct{})
	defer close(stop)
	go func() { // the namespace's own counters, read by the agent's pid
		stat := "/proc/" + strconv.Itoa(agent.Process.Pid) + "/net/stat/nf_conntrack"
		for {
			select {
			case <-stop:
				return
			default:
			}
			if dropsIn(stat) > 0 {
				firstDrop.Store(time.Now().UnixNano())
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	dec := stream.NewDecoder(bufio.NewReader(out))
	if err := dec.Header(); err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(1500 * time.Millisecond) // a sample or two far from the cap first
		ns.Run(netns.Load{Addr: srv.Addr(), Workers: 8, Requests: 3000, Rate: 300,
			DialTimeout: 300 * time.Millisecond, Deadline: 8 * time.Second, Stop: stop})
	}()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		s, _, err := dec.Next()
		if err != nil {
			t.Fatal(err)
		}
		if s == nil || s.CTStats.Total(model.Drop) == 0 {
			continue
		}
		arrived := time.Now()
		at := firstDrop.Load()
		if at == 0 {
			t.Fatal("a sample says drops the test's reading of the counters never saw")
		}
		took := arrived.Sub(time.Unix(0, at))
		t.Logf("first drop → its sample: %v (the sample's interval %v)", took, s.Interval)
		return took
	}
	t.Fatal("no sample with a drop in 15 s: the table never filled")
	return 0
}

// dropsIn is the drop column of a conntrack statistics file, summed over
// its CPUs (0 when unreadable).
func dropsIn(path string) uint64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	col := -1
	for i, name := range strings.Fields(lines[0]) {
		if name == "drop" {
			col = i
		}
	}
	var sum uint64
	for _, l := range lines[1:] {
		if f := strings.Fields(l); col >= 0 && col < len(f) {
			n, _ := strconv.ParseUint(f[col], 16, 64)
			sum += n
		}
	}
	return sum
}

// StatusField is a kB field of pid's /proc status, named with its colon
// ("VmHWM:"); 0 when unread.
func StatusField(pid int, name string) int64 {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, name) {
			v, _ := strconv.ParseInt(strings.Fields(l)[1], 10, 64)
			return v
		}
	}
	return 0
}
