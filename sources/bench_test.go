package sources

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tablefull/tablefull/sources/counters"
	"github.com/tablefull/tablefull/sources/kernelfs"
)

// floorFiles are the files one sample reads, for the raw floor: open,
// read and close each, no parsing.
var floorFiles = []string{
	"/proc/sys/net/netfilter/nf_conntrack_count",
	"/proc/sys/net/netfilter/nf_conntrack_max",
	"/proc/sys/net/netfilter/nf_conntrack_buckets",
	"/proc/sys/net/netfilter/nf_conntrack_tcp_timeout_time_wait",
	"/proc/net/stat/nf_conntrack",
	"/proc/stat",
	"/proc/self/net/netstat",
	"/proc/self/net/snmp",
	"/proc/net/sockstat",
	"/proc/sys/net/ipv4/ip_local_port_range",
}

// BenchmarkRawFloor is the least a sample can cost: reading its files.
func BenchmarkRawFloor(b *testing.B) {
	buf := make([]byte, 64<<10)
	for b.Loop() {
		for _, p := range floorFiles {
			f, err := os.Open(p)
			if err != nil {
				continue
			}
			for {
				n, err := f.Read(buf)
				if n == 0 || err != nil {
					break
				}
			}
			f.Close()
		}
		entries, _ := os.ReadDir(filepath.Join("/sys", "block"))
		for _, e := range entries {
			if !counters.SkipDevice(e.Name()) {
				if b, err := os.ReadFile(filepath.Join("/sys", "block", e.Name(), "stat")); err == nil {
					_ = b
				}
			}
		}
	}
}

// BenchmarkCollectorSample is one whole sample of the local host.
func BenchmarkCollectorSample(b *testing.B) {
	c, err := NewCollector(kernelfs.DefaultRoots())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	c.Sample(time.Now(), time.Second) // the first kernel log poll reads the backlog
	b.ResetTimer()
	for b.Loop() {
		c.Sample(time.Now(), time.Second)
	}
}
