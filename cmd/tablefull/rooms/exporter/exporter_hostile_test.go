package exporter

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
)

// procStatus reads a field of /proc/PID/status in kB.
func procStatus(t *testing.T, pid int, field string) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return n
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// TestExporterProcessUnderAttack: the real exporter, attacked by 2,000
// connections each sending a megabyte of one header and never ending it,
// then holding 1,000 connections idle: its peak RSS stays under the
// systemd unit's MemoryMax (64 MiB), its descriptors under what it held
// before (the files it keeps open to reread, a knob each) with the
// connection cap and a few, and a scrape still answers within a second.
func TestExporterProcessUnderAttack(t *testing.T) {
	clitest.NeedKernel(t)
	addr, pid := clitest.StartHostExporter(t, "--interval", "500ms")
	time.Sleep(time.Second) // a sample or two read: the files it keeps open are open
	held, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	t.Logf("before: VmHWM %d kB; %d descriptors (the files it keeps open to reread, its listener)", procStatus(t, pid, "VmHWM"), len(held))

	header := strings.Repeat("a", 64<<10)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 500) // 500 at a time: the test's own descriptors
	for range 2000 {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			c, err := net.Dial("tcp", addr)
			if err != nil {
				return
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(3 * time.Second))
			io.WriteString(c, "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: ")
			for range 16 {
				if _, err := io.WriteString(c, header); err != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	var idle []net.Conn
	defer func() {
		for _, c := range idle {
			c.Close()
		}
	}()
	for range 1000 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		idle = append(idle, c)
	}
	start := time.Now()
	c := &http.Client{Timeout: time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := c.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatalf("a scrape after the attack, 1,000 idle connections held: %v", err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	hwm := procStatus(t, pid, "VmHWM")
	fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	t.Logf("scrape in %s; peak RSS %d kB; %d descriptors", time.Since(start).Round(time.Millisecond), hwm, len(fds))
	if hwm > 64<<10 {
		t.Errorf("peak RSS %d kB, over the unit's MemoryMax of 64 MiB", hwm)
	}
	if len(fds) > len(held)+128+4 { // what it held before, the cap of 128 connections, the scrape's and a few in passing
		t.Errorf("%d descriptors open, over the %d it held before the attack, the cap of 128 connections and a few", len(fds), len(held))
	}
}
