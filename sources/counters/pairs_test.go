package counters

import (
	"strings"
	"testing"

	"github.com/prometheus/procfs"
)

// TestPairFile: named counters read from header and value lines by name,
// whatever their order; a key the kernel lacks and a negative value read
// 0; the header's positions follow a new header; a file without the
// prefix's lines is an error.
func TestPairFile(t *testing.T) {
	path, write := tempFile(t, "snmp")
	p := newPairFile(path, "Tcp: ", "ActiveOpens", "CurrEstab", "Missing")
	defer p.close()
	out := make([]uint64, 3)
	write("Ip: Forwarding\nIp: 1\nTcp: RtoMin MaxConn ActiveOpens CurrEstab\nTcp: 200 -1 12 3\nUdp: InDatagrams\nUdp: 5\n")
	if err := p.read(out); err != nil || out[0] != 12 || out[1] != 3 || out[2] != 0 {
		t.Fatalf("got %v, %v", out, err)
	}
	write("Tcp: CurrEstab ActiveOpens MaxConn\nTcp: 7 99 -1\n")
	if err := p.read(out); err != nil || out[0] != 99 || out[1] != 7 {
		t.Fatalf("after a new header: %v, %v", out, err)
	}
	write("Udp: InDatagrams\nUdp: 5\n")
	if err := p.read(out); err == nil || !strings.Contains(err.Error(), `no "Tcp:" lines`) {
		t.Errorf("a file without Tcp lines: %v", err)
	}
}

// TestTCPAgreesWithProcfs: on this host's own files the in-place reader
// says what prometheus/procfs's parsers say (read twice around ours: a
// counter may move between reads, never back).
func TestTCPAgreesWithProcfs(t *testing.T) {
	fs, err := procfs.NewFS("/proc")
	if err != nil {
		t.Skip(err)
	}
	self, _ := fs.Self()
	before, err := self.Snmp()
	if err != nil {
		t.Skip(err)
	}
	tcp, err := NewTCP("/proc")
	if err != nil {
		t.Fatal(err)
	}
	defer tcp.Close()
	got, err := tcp.Read()
	if err != nil {
		t.Fatal(err)
	}
	after, _ := self.Snmp()
	ns, _ := self.Netstat()
	if lo, hi := uint64(*before.Tcp.ActiveOpens), uint64(*after.Tcp.ActiveOpens); got.ActiveOpens < lo || got.ActiveOpens > hi {
		t.Errorf("active opens %d, procfs %d..%d", got.ActiveOpens, lo, hi)
	}
	if got.ListenOverflows > uint64(*ns.TcpExt.ListenOverflows) || got.SynRetrans > uint64(*ns.TcpExt.TCPSynRetrans) {
		t.Errorf("netstat %+v, procfs later %v %v", got, *ns.TcpExt.ListenOverflows, *ns.TcpExt.TCPSynRetrans)
	}
}
