package incidents

import (
	"encoding/binary"
	"errors"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/sources/kernelfs"
	"github.com/tablefull/tablefull/sources/probes"
)

// TestDropsToldApartWhereDecided: in a namespace whose table is full
// (max = buckets = 256) and whose ruleset drops ct state invalid, bare
// ACKs (invalid without an entry, nf_conntrack_tcp_loose 0) are a rule's
// drops, and the datagrams past the cap are the table's. Where the
// kernel lets the probes trace nf_conntrack_in's verdict, the table's
// drops are only the packets it refused and the rule's are counted
// apart; where it does not (no function tracing: this VM's kernel), the
// probes say so and count both, as before. TFT_GUEST_PROBES=1 (Debian's
// kernel in the boot test's guest) requires the split.
func TestDropsToldApartWhereDecided(t *testing.T) {
	clitest.NeedKernel(t)
	clitest.LowerMax(t, 256)
	ns := clitest.LabNS(t)
	if err := ns.Do(func() error {
		return os.WriteFile("/proc/sys/net/netfilter/nf_conntrack_tcp_loose", []byte("0"), 0o644)
	}); err != nil {
		t.Fatal(err)
	}
	if err := ns.Nft(`table inet tft-rules {
	chain out { type filter hook output priority 10; policy accept; ct state invalid counter drop; }
}`); err != nil {
		t.Fatal(err)
	}
	w, err := probes.Load("/proc", ns.Path())
	if errors.Is(err, kernelfs.ErrUnavailable) { // a kernel without BTF; any other failure is the probes'
		t.Skipf("no probes here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.Read()
	if err := ns.Do(func() error { return bareACKs(20, 7777) }); err != nil {
		t.Fatal(err)
	}
	if err := ns.Do(func() error { return fillWithOpen(t, "127.0.0.1:7778", 256, 5) }); err != nil {
		t.Fatal(err)
	}
	who := w.Read()
	var acks, syns uint64
	for _, d := range who.Drops {
		switch {
		case strings.HasSuffix(d.Dest, ":7777"):
			acks += d.N
		case strings.HasSuffix(d.Dest, ":7778"):
			syns += d.N
		}
	}
	t.Logf("split %v: the table's drops %d to :7778, %d to :7777; a rule's %d; limit %q", who.DropsSplit, syns, acks, who.DroppedByRules, who.Limit)
	if syns < 5 {
		t.Errorf("5 connections over a table of 256 open ones: %d of the table's drops counted", syns)
	}
	switch {
	case who.DropsSplit:
		if acks != 0 || who.DroppedByRules < 20 {
			t.Errorf("split, yet %d of the rule's 20 drops taken for the table's, %d counted as a rule's", acks, who.DroppedByRules)
		}
	case os.Getenv("TFT_GUEST_PROBES") != "":
		t.Errorf("the drops are not split on this kernel: %s", who.Limit)
	default:
		if !strings.Contains(who.Limit, "a rule's included") || acks < 20 {
			t.Errorf("not split: limit %q, the rule's drops %d (want said, and counted as before)", who.Limit, acks)
		}
	}
}

// bareACKs sends n TCP segments with only ACK set to 127.0.0.1:port,
// each from a port of its own: without an entry, and with loose pickup
// off, conntrack finds each invalid.
func bareACKs(n int, port uint16) error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_RAW, unix.IPPROTO_TCP)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	to := &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}
	for i := range n {
		h := make([]byte, 20)
		binary.BigEndian.PutUint16(h[0:], uint16(40000+i))
		binary.BigEndian.PutUint16(h[2:], port)
		binary.BigEndian.PutUint32(h[4:], 1000)
		binary.BigEndian.PutUint32(h[8:], 2000)
		h[12], h[13] = 5<<4, 0x10 // 20 bytes; ACK
		binary.BigEndian.PutUint16(h[14:], 1024)
		if err := unix.Sendto(fd, h, 0, to); err != nil && err != unix.EPERM { // EPERM: netfilter dropped it, as meant
			return err
		}
	}
	return nil
}

// fillWithOpen serves on addr and holds open connections to it until the
// table is full (established entries: nothing evicts them), then tries
// more connections, whose SYNs the full table refuses; everything is
// closed when the test ends.
func fillWithOpen(t *testing.T, addr string, open, more int) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	accepted := make(chan struct{})
	go func() {
		defer close(accepted)
		var held []net.Conn
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil { // closed by Cleanup
				return
			}
			held = append(held, c)
		}
	}()
	t.Cleanup(func() { ln.Close(); <-accepted })
	var conns []net.Conn
	t.Cleanup(func() {
		for _, c := range conns {
			c.Close()
		}
	})
	for len(conns) < open {
		c, err := net.DialTimeout("tcp", addr, 300*time.Millisecond)
		if err != nil {
			break // the table is full
		}
		conns = append(conns, c)
	}
	for range more { // on this thread: it is the one in the namespace; a local SYN the table refuses fails at once (EPERM)
		if c, err := net.DialTimeout("tcp", addr, 300*time.Millisecond); err == nil {
			conns = append(conns, c)
		}
	}
	return nil
}
