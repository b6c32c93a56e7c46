package netns

import (
	"errors"
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// Echo answers every UDP datagram on its addresses with the datagram
// itself: resolvers' stand-ins behind a DNAT.
type Echo struct {
	conns []net.PacketConn
	wg    sync.WaitGroup
	// answered counts the datagrams answered.
	answered atomic.Int64
}

// Answered is how many datagrams the echo has answered.
func (e *Echo) Answered() int64 { return e.answered.Load() }

// ServeEcho starts an Echo on each address inside the namespace.
func (n *NS) ServeEcho(addrs ...string) (*Echo, error) {
	e := &Echo{}
	err := n.Do(func() error {
		for _, a := range addrs {
			c, err := net.ListenPacket("udp", a)
			if err != nil {
				return err
			}
			e.conns = append(e.conns, c)
		}
		return nil
	})
	if err != nil {
		e.Close()
		return nil, err
	}
	for _, c := range e.conns {
		e.wg.Add(1)
		go func() {
			defer e.wg.Done()
			buf := make([]byte, 512)
			for {
				n, from, err := c.ReadFrom(buf)
				if err != nil {
					return
				}
				c.WriteTo(buf[:n], from)
				e.answered.Add(1)
			}
		}()
	}
	return e, nil
}

// Close stops answering.
func (e *Echo) Close() error {
	for _, c := range e.conns {
		c.Close()
	}
	e.wg.Wait()
	return nil
}

// Lookups is how a resolver asks: a new UDP socket per lookup, its A and
// AAAA queries sent at one instant from two threads (glibc sends both
// before it reads either), both answers awaited. Behind a DNAT the two
// queries race to insert one conntrack entry.
type Lookups struct {
	Addr    string
	Workers int
	// Stop ends the lookups.
	Stop <-chan struct{}
	// Stats, when set, counts each lookup as it finishes.
	Stats *Stats
}

// RunLookups drives the lookups from inside the namespace until Stop.
func (n *NS) RunLookups(l Lookups) error {
	errs := make(chan error, l.Workers)
	for range l.Workers {
		go func() {
			errs <- n.Do(func() error {
				for {
					select {
					case <-l.Stop:
						return nil
					default:
					}
					t0 := time.Now()
					err := lookup(l.Addr)
					l.Stats.record(time.Since(t0), err)
				}
			})
		}()
	}
	var all []error
	for range l.Workers {
		all = append(all, <-errs)
	}
	return errors.Join(all...)
}

// lookup sends two queries on one new socket at once, each from a thread
// of its own straight to the socket (Go's own writes on a connection take
// turns), and reads both answers, waiting at most 2 s.
func lookup(addr string) error {
	c, err := net.Dial("udp", addr)
	if err != nil {
		return err
	}
	defer c.Close()
	raw, err := c.(*net.UDPConn).SyscallConn()
	if err != nil {
		return err
	}
	if err := raw.Control(func(fd uintptr) { sendAtOnce(int(fd)) }); err != nil { // the socket stays open while it runs
		return err
	}
	c.SetReadDeadline(time.Now().Add(2 * time.Second))
	buf := make([]byte, 64)
	for range 2 {
		if _, err := c.Read(buf); err != nil {
			return err
		}
	}
	return nil
}

// sendAtOnce writes two queries to the socket fd from two threads that
// wait for each other on a CPU: the A and the AAAA query of one lookup.
func sendAtOnce(fd int) {
	var arrived atomic.Int32
	var sent sync.WaitGroup
	for q := range 2 {
		sent.Add(1)
		go func() {
			defer sent.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			arrived.Add(1)
			for spins := 0; arrived.Load() < 2; spins++ {
				if spins > 1<<16 {
					runtime.Gosched()
				}
			}
			unix.Write(fd, []byte{byte(q), 'q'})
		}()
	}
	sent.Wait()
}

// Senders are clients that each keep one UDP socket and send on it every
// Every, as a stub resolver or a metrics agent reusing its port does:
// each datagram refreshes its conntrack entry, answered or not.
type Senders struct {
	Addr    string
	Sockets int
	Every   time.Duration
	// Stop ends the sending.
	Stop <-chan struct{}
	// Stats, when set, counts each datagram sent.
	Stats *Stats
}

// RunSenders opens the sockets inside the namespace and sends until Stop.
func (n *NS) RunSenders(s Senders) error {
	to, err := net.ResolveUDPAddr("udp", s.Addr)
	if err != nil {
		return err
	}
	var conns []net.PacketConn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	if err := n.Do(func() error {
		for range s.Sockets {
			c, err := net.ListenPacket("udp", "127.0.0.1:0") // not connected: an ICMP error stops no send
			if err != nil {
				return err
			}
			conns = append(conns, c)
		}
		return nil
	}); err != nil {
		return err
	}
	tick := time.NewTicker(s.Every)
	defer tick.Stop()
	for {
		for _, c := range conns {
			_, err := c.WriteTo([]byte("q"), to)
			s.Stats.record(0, err)
		}
		select {
		case <-s.Stop:
			return nil
		case <-tick.C:
		}
	}
}
