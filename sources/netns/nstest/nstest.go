// Package nstest gives the kernel tests of every package the same
// ground: a tracked network namespace with a listener, servers and
// connections in namespaces, process groups stopped with the test,
// cgroups, and the claims on the machine's global knobs, each made and
// removed by the test. It is imported by tests only.
package nstest

import (
	"fmt"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

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
	return ns, Serve(t, ns, "127.0.0.1:0", nil)
}

// Serve listens on TCP addr inside ns (nil: the namespace the test runs
// in) and hands each connection to handle (nil: closes it at once), until
// the test ends; it returns the address listened on.
func Serve(t testing.TB, ns *netns.NS, addr string, handle func(net.Conn)) string {
	t.Helper()
	var ln net.Listener
	listen := func() (err error) { ln, err = net.Listen("tcp", addr); return err }
	var err error
	if ns == nil {
		err = listen()
	} else {
		err = ns.Do(listen)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			if handle == nil {
				c.Close()
				continue
			}
			go handle(c)
		}
	}()
	return ln.Addr().String()
}

// HoldOpen serves addr inside ns, opens n connections to it from inside
// ns and keeps both ends of each open until the test ends: n entries that
// stand. It returns the clients' ends.
func HoldOpen(t testing.TB, ns *netns.NS, addr string, n int) []net.Conn {
	t.Helper()
	Serve(t, ns, addr, Hold(t))
	var clients []net.Conn
	t.Cleanup(func() {
		for _, c := range clients {
			c.Close()
		}
	})
	if err := ns.Do(func() error {
		for range n {
			c, err := net.DialTimeout("tcp", addr, time.Second)
			if err != nil {
				return err
			}
			clients = append(clients, c)
		}
		return nil
	}); err != nil {
		t.Fatalf("holding %d connections open: %v", n, err)
	}
	return clients
}

// Connect makes n TCP connections to addr from inside ns, one at a time,
// each closed once made: n tracked entries, ending.
func Connect(t testing.TB, ns *netns.NS, addr string, n int) {
	t.Helper()
	if err := ns.Do(func() error {
		for range n {
			c, err := net.DialTimeout("tcp", addr, time.Second)
			if err != nil {
				return err
			}
			c.Close()
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// Hold is a handler for Serve that keeps each connection open until the
// test ends: established entries, which nothing evicts.
func Hold(t testing.TB) func(net.Conn) {
	var mu sync.Mutex
	var held []net.Conn
	ended := false
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		ended = true
		for _, c := range held {
			c.Close()
		}
	})
	return func(c net.Conn) {
		mu.Lock()
		defer mu.Unlock()
		if ended {
			c.Close()
			return
		}
		held = append(held, c)
	}
}
