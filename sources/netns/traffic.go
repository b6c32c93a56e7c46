package netns

import (
	"bufio"
	"errors"
	"fmt"
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
		}()
	}
}

// Close stops accepting and waits for requests in flight.
func (s *Server) Close() error {
	err := s.ln.Close()
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
	var slowest atomic.Int64
	stop := time.Now().Add(l.Deadline)
	errs := make(chan error, l.Workers)
	for range l.Workers {
		go func() {
			errs <- n.Do(func() error {
				for next.Add(1) <= int64(l.Requests) && time.Now().Before(stop) {
					t0 := time.Now()
					if err := request(l.Addr, l.DialTimeout); err != nil {
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
	res.Slowest = time.Duration(slowest.Load())
	return res, errors.Join(all...)
}

func request(addr string, timeout time.Duration) error {
	c, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := c.Write([]byte("GET\n")); err != nil {
		return err
	}
	_, err = bufio.NewReader(c).ReadByte()
	return err
}
