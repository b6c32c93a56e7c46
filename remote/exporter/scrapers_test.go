package exporter

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestTwoScrapersReadTheSame: a scraper every second and one every 15 s
// around a burst to near the cap and a pin both read the burst's peak and
// both see the verdicts: no scrape takes them from the other.
func TestTwoScrapersReadTheSame(t *testing.T) {
	e := New("test") // the default window, a minute
	srv := httptest.NewServer(Handler(e, ""))
	defer srv.Close()
	var fast []map[string]*dto
	for i := range 16 {
		count, peak := uint64(500), uint64(500)
		switch i {
		case 4:
			peak = 3900 // a burst between two samples
		case 8, 9:
			count, peak = 4096, 4096 // pinned
		}
		e.Observe(sample(i, count, peak, 0))
		fast = append(fast, scrape(t, srv.URL)) // the 1 s scraper, right after each sample
	}
	slow := scrape(t, srv.URL) // the 15 s scraper
	for name, m := range map[string]map[string]*dto{"1 s scraper": fast[15], "15 s scraper": slow} {
		if got := m["tablefull_conntrack_entries_peak"].v(""); got != 4096 {
			t.Errorf("%s reads peak %v, want 4096", name, got)
		}
		if m["tablefull_verdict"].v("kind=table_full,") != 1 || m["tablefull_verdict"].v("kind=near_cap,") != 1 {
			t.Errorf("%s reads verdicts %v, want table_full and near_cap held", name, m["tablefull_verdict"].values)
		}
		if m["tablefull_verdict_seconds_total"].v("kind=table_full,") < 1 {
			t.Errorf("%s reads table_full seconds %v, want the pin's", name, m["tablefull_verdict_seconds_total"].v("kind=table_full,"))
		}
	}
}

// serveTest serves e on a loopback port with web, returning its URL and
// the connection cap's listener.
func serveTest(t *testing.T, e *Exporter, w Web) (string, *connLimit) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := newConnLimit(ln, w.MaxConns)
	srv := newServer(Handler(e, ""), l, w)
	go srv.Serve(l)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		srv.Close()
	})
	return "http://" + ln.Addr().String(), l
}

// open is how many connections the cap holds open.
func (l *connLimit) open() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.conns)
}

// heapInUse is the heap in use after a collection.
func heapInUse() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// scrapeWithin scrapes on a fresh connection and fails past d.
func scrapeWithin(t *testing.T, url string, d time.Duration) {
	t.Helper()
	c := &http.Client{Timeout: d, Transport: &http.Transport{DisableKeepAlives: true}}
	start := time.Now()
	resp, err := c.Get(url + "/metrics")
	if err != nil {
		t.Fatalf("a scrape beside the others: %v", err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("a scrape beside the others: %s", resp.Status)
	}
	t.Logf("scrape answered in %s", time.Since(start).Round(time.Millisecond))
}

// TestIdleConnectionsBounded: 20,000 connections, each with one request
// and then idle (and 1,000 that never send one), keep at most the cap
// open on the exporter's side, and a scrape still answers at once. The
// clients are in this process too: with fewer descriptors than that
// (ulimit -n), as many as fit.
func TestIdleConnectionsBounded(t *testing.T) {
	var lim syscall.Rlimit
	syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim)
	idle := min(20000, int(lim.Cur)-1000-500)
	t.Logf("%d idle connections and 1,000 silent ones (descriptors: %d)", idle, lim.Cur)
	e := New("test")
	e.Observe(sample(0, 500, 500, 0))
	url, l := serveTest(t, e, Web{MaxConns: 64})
	addr := strings.TrimPrefix(url, "http://")
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for i := range idle + 1000 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("dial %d: %v", i, err)
		}
		conns = append(conns, c)
		if i < idle {
			fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		}
		if i%1000 == 999 && l.open() > 64 {
			t.Fatalf("%d connections open on the exporter's side, over the cap of 64", l.open())
		}
	}
	scrapeWithin(t, url, 2*time.Second)
	if n := l.open(); n > 64 {
		t.Errorf("%d connections open, over the cap", n)
	}
}

// TestHugeHeadersBounded: 500 connections each sending a megabyte of one
// header and never ending it cost the exporter a bounded heap, and a
// scrape still answers.
func TestHugeHeadersBounded(t *testing.T) {
	e := New("test")
	e.Observe(sample(0, 500, 500, 0))
	url, _ := serveTest(t, e, Web{})
	addr := strings.TrimPrefix(url, "http://")
	before := heapInUse()
	var wg sync.WaitGroup
	header := strings.Repeat("a", 64<<10)
	for range 500 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.Dial("tcp", addr)
			if err != nil {
				return
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(5 * time.Second))
			fmt.Fprintf(c, "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: ")
			for range 16 { // a megabyte, never ended
				if _, err := io.WriteString(c, header); err != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	grown := int64(heapInUse()) - int64(before)
	t.Logf("heap grew %d KiB", grown>>10)
	if grown > 64<<20 {
		t.Errorf("heap grew %d MiB under huge headers, over 64 MiB", grown>>20)
	}
	scrapeWithin(t, url, 2*time.Second)
}

// TestSilentBodyClosed: a request announcing a body it never sends is
// closed by the read timeout, not held.
func TestSilentBodyClosed(t *testing.T) {
	e := New("test")
	url, _ := serveTest(t, e, Web{ReadTimeout: 500 * time.Millisecond})
	c, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n")
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	io.Copy(io.Discard, c) // until the server closes it
	if err := c.SetReadDeadline(time.Time{}); err == nil {
		if _, err := c.Read(make([]byte, 1)); err == nil {
			t.Error("the connection is still open")
		}
	}
}

// TestFloodBesidePoliteScraper: 64 keep-alive loops on /metrics, and a
// scraper every 250 ms beside them still gets every answer.
func TestFloodBesidePoliteScraper(t *testing.T) {
	e := New("test")
	e.Observe(sample(0, 500, 500, 0))
	url, _ := serveTest(t, e, Web{})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var flooded atomic.Int64
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &http.Client{}
			for ctx.Err() == nil {
				req, _ := http.NewRequestWithContext(ctx, "GET", url+"/metrics", nil)
				if resp, err := c.Do(req); err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					flooded.Add(1)
				}
			}
		}()
	}
	polite := &http.Client{Timeout: 2 * time.Second}
	failed := 0
	for i := range 36 {
		if i%4 == 0 {
			e.Observe(sample(i/4+1, 500, 500, 0)) // a new sample a second
		}
		resp, err := polite.Get(url + "/metrics")
		if err != nil || resp.StatusCode != http.StatusOK {
			failed++
		}
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		time.Sleep(250 * time.Millisecond)
	}
	cancel()
	wg.Wait()
	t.Logf("the flood made %d scrapes", flooded.Load())
	if failed > 0 {
		t.Errorf("the polite scraper failed %d of 36 scrapes", failed)
	}
}
