// Package nstest gives kernel tests in every package of sources the same
// ground: a tracked network namespace with a listener, made and removed
// by the test. It is imported by tests only.
package nstest

import (
	"fmt"
	"net"
	"os"
	"sync/atomic"
	"testing"

	"github.com/tablefull/tablefull/sources/kernelfs/kernelfstest"
	"github.com/tablefull/tablefull/sources/netns"
)

// made numbers the namespaces of one test binary.
var made atomic.Int64

// Tracked is a namespace whose traffic conntrack tracks (netns.TrackRuleset),
// with a TCP listener on its loopback that accepts and closes every
// connection; it returns the listener's address. Both are removed when
// the test ends. It skips without root or nft.
func Tracked(t testing.TB) (*netns.NS, string) {
	t.Helper()
	kernelfstest.Need(t, "a namespace", "nft")
	ns, err := netns.Create(fmt.Sprintf("tft-ev-%d-%d", os.Getpid(), made.Add(1)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ns.Delete() })
	if err := ns.Nft(netns.TrackRuleset); err != nil {
		t.Fatal(err)
	}
	var ln net.Listener
	if err := ns.Do(func() (err error) { ln, err = net.Listen("tcp", "127.0.0.1:0"); return err }); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	return ns, ln.Addr().String()
}
