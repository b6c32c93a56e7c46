package netns

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Server answers every connection with one small object and closes it,
// like an object store serving many small files.
type Server struct {
	ln   net.Listener
	wg   sync.WaitGroup
	Body []byte
	// Work, when set, is done for every request (e.g. to burn CPU).
	Work func()
	// AcceptDelay, when set, is waited after each accept: a server that
	// accepts slower than connections arrive.
	AcceptDelay time.Duration
	// Keep holds each connection open after its answer until the client
	// closes it or the server does (a pool of persistent connections).
	Keep    bool
	mu      sync.Mutex
	held    map[net.Conn]bool
	closing bool
}

// Serve listens on addr inside the namespace and serves until Close.
func (n *NS) Serve(addr string, s *Server) error {
	err := n.Do(func() error {
		ln, err := net.Listen("tcp", addr)
		s.ln = ln
		return err
	})
	if err != nil {
		return fmt.Errorf("listen %s in %s: %w", addr, n.Name, err)
	}
	s.wg.Add(1)
	go s.loop()
	return nil
}

// Addr is the address the server listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

func (s *Server) loop() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		if s.AcceptDelay > 0 {
			time.Sleep(s.AcceptDelay)
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer c.Close()
			c.SetDeadline(time.Now().Add(5 * time.Second))
			if _, err := bufio.NewReader(c).ReadString('\n'); err != nil {
				return
			}
			if s.Work != nil {
				s.Work()
			}
			c.Write(s.Body)
			if s.Keep && s.hold(c) {
				c.SetDeadline(time.Time{})
				io.Copy(io.Discard, c) // until the client closes, or Close does
			}
		}()
	}
}

// hold records a kept connection; false once the server is closing.
func (s *Server) hold(c net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	if s.held == nil {
		s.held = map[net.Conn]bool{}
	}
	s.held[c] = true
	return true
}

// Close stops accepting, closes the connections it keeps and waits for
// requests in flight.
func (s *Server) Close() error {
	err := s.ln.Close()
	s.mu.Lock()
	s.closing = true
	for c := range s.held {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return err
}

// Load is a bounded client workload: Workers connections at a time, one
// new connection per request, as DuckDB fetched one object per connection.
type Load struct {
	Addr        string
	Workers     int
	Requests    int           // total requests, shared by the workers
	DialTimeout time.Duration // a dropped SYN shows as a dial timeout
	Deadline    time.Duration // the whole load stops after this long
	// Rate caps requests per second over all workers (0: as fast as they
	// go); Burst, when set, makes all workers fire together every Burst.
	Rate  float64
	Burst time.Duration
	// Stop ends the load early when closed.
	Stop <-chan struct{}
	// Stats, when set, is updated live with every request.
	Stats *Stats
	// Keep leaves each connection open after its answer until the load
	// ends: a leaking pool of persistent connections. With Stop, the
	// load ends at Stop, not when its requests are done: a pool that
	// stays.
	Keep bool
	// Reset ends each connection with a reset (SO_LINGER 0) after its
	// answer, as a client that aborts does: conntrack holds its entry in
	// CLOSE, not TIME_WAIT.
	Reset bool
}

// Stats counts requests as they finish, by how long they waited: a
// dropped SYN is retried after 1 s, then 3 s and 7 s in all.
type Stats struct {
	OK, Failed atomic.Int64
	// Waiting is the number of requests under way now.
	Waiting atomic.Int64
	// Waited counts requests that took ≥ 1 s, ≥ 3 s and ≥ 7 s.
	Waited [3]atomic.Int64
}

func (s *Stats) record(d time.Duration, err error) {
	if s == nil {
		return
	}
	if err != nil {
		s.Failed.Add(1)
	} else {
		s.OK.Add(1)
	}
	for i, limit := range []time.Duration{time.Second, 3 * time.Second, 7 * time.Second} {
		if d >= limit-100*time.Millisecond {
			s.Waited[i].Add(1)
		}
	}
}

// String summarises the clients: "clients: 8 waiting now, 12340 ok, 5
// failed; waited ≥1 s: 30, ≥3 s: 20, ≥7 s: 6".
func (s *Stats) String() string {
	return fmt.Sprintf("clients: %d waiting now, %d ok, %d failed; waited ≥1 s: %d, ≥3 s: %d, ≥7 s: %d",
		s.Waiting.Load(), s.OK.Load(), s.Failed.Load(), s.Waited[0].Load(), s.Waited[1].Load(), s.Waited[2].Load())
}

// LoadResult counts what happened.
type LoadResult struct {
	OK, Failed int64
	Slowest    time.Duration
}

// Run drives the load from inside the namespace and waits for it.
func (n *NS) Run(l Load) (LoadResult, error) {
	var res LoadResult
	var next atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if l.Stop != nil {
		go func() {
			select {
			case <-l.Stop:
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	var slowest atomic.Int64
	var keptMu sync.Mutex
	var kept []net.Conn
	defer func() {
		for _, c := range kept {
			c.Close()
		}
	}()
	stop := time.Now().Add(l.Deadline)
	errs := make(chan error, l.Workers)
	for range l.Workers {
		go func() {
			errs <- n.Do(func() error {
				for next.Add(1) <= int64(l.Requests) && time.Now().Before(stop) {
					if !l.pace() {
						return nil
					}
					t0 := time.Now()
					if l.Stats != nil {
						l.Stats.Waiting.Add(1)
					}
					c, err := request(ctx, l.Addr, l.DialTimeout)
					if c != nil && l.Keep {
						keptMu.Lock()
						kept = append(kept, c)
						keptMu.Unlock()
					} else if c != nil {
						if tc, ok := c.(*net.TCPConn); ok && l.Reset {
							tc.SetLinger(0)
						}
						c.Close()
					}
					if l.Stats != nil {
						l.Stats.Waiting.Add(-1)
					}
					if ctx.Err() == nil {
						l.Stats.record(time.Since(t0), err)
					}
					if err != nil {
						atomic.AddInt64(&res.Failed, 1)
						continue
					}
					atomic.AddInt64(&res.OK, 1)
					if d := int64(time.Since(t0)); d > slowest.Load() {
						slowest.Store(d)
					}
				}
				return nil
			})
		}()
	}
	var all []error
	for range l.Workers {
		all = append(all, <-errs)
	}
	if l.Keep && l.Stop != nil {
		<-ctx.Done() // the pool stays open until the load is stopped
	}
	res.Slowest = time.Duration(slowest.Load())
	return res, errors.Join(all...)
}

// request makes one request on a new connection and returns it open
// when it was answered (the caller closes it).
func request(ctx context.Context, addr string, timeout time.Duration) (net.Conn, error) {
	d := net.Dialer{Timeout: timeout}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := c.Write([]byte("GET\n")); err != nil {
		c.Close()
		return nil, err
	}
	if _, err = bufio.NewReader(c).ReadByte(); err != nil {
		c.Close()
		return nil, err
	}
	c.SetDeadline(time.Time{})
	return c, nil
}

// pace waits for this worker's next turn; false when the load is stopped.
func (l Load) pace() bool {
	var wait time.Duration
	switch {
	case l.Burst > 0:
		wait = time.Until(time.Now().Truncate(l.Burst).Add(l.Burst))
	case l.Rate > 0:
		wait = time.Duration(float64(l.Workers) / l.Rate * float64(time.Second))
	}
	if wait <= 0 {
		select {
		case <-l.Stop:
			return false
		default:
			return true
		}
	}
	select {
	case <-l.Stop:
		return false
	case <-time.After(wait):
		return true
	}
}
