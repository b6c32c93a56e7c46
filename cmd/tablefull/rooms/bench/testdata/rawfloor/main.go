// Command rawfloor is the bench's reference for an always-on sampler: a Go
// program set up as the agent is (one P) that wakes once a second and
// opens, reads and closes the files one sample needs, parsing nothing and
// writing nothing. What it costs is the floor of sampling this host once
// a second from Go.
package main

import (
	"os"
	"path/filepath"
	"runtime"
	"time"
)

var files = []string{
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

func main() {
	runtime.GOMAXPROCS(1)
	buf := make([]byte, 64<<10)
	disks, _ := filepath.Glob("/sys/block/*/stat")
	for range time.Tick(time.Second) {
		for _, p := range append(files, disks...) {
			f, err := os.Open(p)
			if err != nil {
				continue
			}
			for {
				if n, err := f.Read(buf); n == 0 || err != nil {
					break
				}
			}
			f.Close()
		}
	}
}
