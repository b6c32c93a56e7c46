package exporter

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	tf "github.com/tablefull/tablefull/model"
)

var t0 = time.Date(2026, 12, 1, 3, 0, 0, 0, time.UTC)

// sample is second i of a 2-CPU host whose table has count entries and
// saw peak between samples; cpu 1 drops drops a second once pinned.
func sample(i int, count, peak, drops uint64) tf.Sample {
	s := tf.Sample{Time: t0.Add(time.Duration(i) * time.Second), Interval: time.Second,
		Conntrack: tf.Conntrack{Status: tf.TableTracked, Count: count, Peak: peak, Max: 4096, Buckets: 4096, TimeWaitHold: 120},
		CTStats:   tf.CTStats{Source: "procfs", Reported: []tf.Counter{tf.Drop, tf.EarlyDrop, tf.SearchRestart}},
		CPU:       []tf.CPUTimes{{CPU: 0, Idle: float64(i)}, {CPU: 1, Idle: float64(i)}},
		Kernel:    tf.KernelLog{Readable: true}}
	for c := range 2 {
		var v tf.CounterValues
		v.Set(tf.SearchRestart, uint64(i))
		if c == 1 {
			v.Set(tf.Drop, drops)
		}
		s.CTStats.PerCPU = append(s.CTStats.PerCPU, tf.CPUCounters{CPU: c, Values: v})
	}
	return s
}

// scrape reads /metrics once and returns the families by name.
func scrape(t *testing.T, url string) map[string]*dto {
	t.Helper()
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %s", resp.Status)
	}
	p := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*dto{}
	for name, f := range fams {
		d := &dto{values: map[string]float64{}}
		for _, m := range f.Metric {
			key := ""
			for _, l := range m.Label {
				key += l.GetName() + "=" + l.GetValue() + ","
			}
			switch {
			case m.Gauge != nil:
				d.values[key] = m.Gauge.GetValue()
			case m.Counter != nil:
				d.values[key] = m.Counter.GetValue()
			}
		}
		out[name] = d
	}
	return out
}

type dto struct{ values map[string]float64 }

func (d *dto) v(labels string) float64 {
	if d == nil {
		return -1
	}
	return d.values[labels]
}

// has reports whether a series with labels was exported.
func (d *dto) has(labels string) bool {
	if d == nil {
		return false
	}
	_, ok := d.values[labels]
	return ok
}

// TestExporterNumbers: the numbers, the peak between scrapes, the time
// pinned, episodes and verdicts come out as the analyzer judged them.
func TestExporterNumbers(t *testing.T) {
	e := New("test", 3*time.Second)
	e.PerCPU = true
	srv := httptest.NewServer(Handler(e, ""))
	defer srv.Close()
	if m := scrape(t, srv.URL); m["tablefull_up"].v("part=stream,") != 0 || m["tablefull_conntrack_entries"] != nil {
		t.Fatalf("before any sample: %+v", m["tablefull_up"])
	}
	for i := range 5 { // quiet, with a burst to 3,900 between samples 2 and 3
		peak := uint64(500)
		if i == 3 {
			peak = 3900
		}
		e.Observe(sample(i, 500, peak, 0))
	}
	m := scrape(t, srv.URL)
	if got := m["tablefull_conntrack_entries_peak"].v(""); got != 3900 {
		t.Errorf("peak since start %v, want the burst's 3900", got)
	}
	if got := scrape(t, srv.URL)["tablefull_conntrack_entries_peak"].v(""); got != 3900 {
		t.Errorf("a second scrape reads peak %v: the first took the burst's 3900 from it", got)
	}
	e.Observe(sample(5, 4096, 4096, 50)) // one pinned second with drops between scrapes…
	e.Observe(sample(6, 500, 500, 50))
	if m := scrape(t, srv.URL); m["tablefull_verdict"].v("kind=table_full,") != 1 && m["tablefull_verdict"].v("kind=near_cap,") != 1 {
		t.Errorf("a verdict that held between scrapes was lost: %v", m["tablefull_verdict"].values)
	}
	if m := scrape(t, srv.URL); m["tablefull_verdict"].v("kind=table_full,") != 1 && m["tablefull_verdict"].v("kind=near_cap,") != 1 {
		t.Errorf("…and is lost to a second scraper: %v", m["tablefull_verdict"].values)
	}
	for i := 7; i < 15; i++ { // pinned for eight seconds, cpu 1 dropping 100/s
		e.Observe(sample(i, 4096, 4096, uint64(100*(i-4))))
	}
	for i := 15; i < 18; i++ {
		e.Observe(sample(i, 3000, 3000, 1000))
	}
	e.Observe(sample(18, 4096, 4096, 1100))
	m = scrape(t, srv.URL)
	for name, want := range map[string]float64{
		"tablefull_conntrack_pinned_seconds_total":  10,
		"tablefull_conntrack_pinned_episodes_total": 2, // 5 and 7–14 are one: a second below does not end it
		"tablefull_conntrack_entries":               4096,
		"tablefull_conntrack_entries_limit":         4096,
	} {
		if got := m[name].v(""); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	if got := m["tablefull_conntrack_cpu_events_total"].v("counter=drop,cpu=1,"); got != 1100 {
		t.Errorf("cpu 1 drops %v, want 1100", got)
	}
	if got := m["tablefull_conntrack_events_total"].v("counter=drop,"); got != 1100 {
		t.Errorf("total drops %v, want 1100", got)
	}
	if _, ok := m["tablefull_conntrack_cpu_events_total"].values["counter=invalid,cpu=0,"]; ok {
		t.Errorf("a counter the kernel does not report is exported")
	}
	if m["tablefull_verdict"].v("kind=table_full,") != 1 || m["tablefull_verdict"].v("kind=near_cap,") != 0 {
		t.Errorf("verdicts %v", m["tablefull_verdict"].values)
	}
	if m["tablefull_up"].v("part=stream,") != 1 || m["tablefull_up"].v("part=kernel_log,") != 1 {
		t.Errorf("up %v", m["tablefull_up"].values)
	}
	if got := m["tablefull_verdict_seconds_total"].v("kind=table_full,"); got < 10 {
		t.Errorf("table_full held %v s, want at least the 10 s pinned", got)
	}
	for i := 19; i < 23; i++ { // quiet for longer than the window
		e.Observe(sample(i, 500, 500, 1100))
	}
	m = scrape(t, srv.URL)
	if m["tablefull_conntrack_entries_peak"].v("") != 500 || m["tablefull_verdict"].v("kind=table_full,") != 0 {
		t.Errorf("past the window: peak %v, table_full %v; want 500, 0", m["tablefull_conntrack_entries_peak"].v(""), m["tablefull_verdict"].v("kind=table_full,"))
	}
	e.Fail(io.ErrUnexpectedEOF)
	if m := scrape(t, srv.URL); m["tablefull_up"].v("part=stream,") != 0 {
		t.Errorf("after the feed failed: stream up %v", m["tablefull_up"].v("part=stream,"))
	}
}

// TestExporterPerCPUOptIn: by default the conntrack counters are served
// summed only, whatever the host's CPUs; per CPU only when asked.
func TestExporterPerCPUOptIn(t *testing.T) {
	e := New("test")
	srv := httptest.NewServer(Handler(e, ""))
	defer srv.Close()
	e.Observe(sample(0, 4096, 4096, 1100))
	m := scrape(t, srv.URL)
	if m["tablefull_conntrack_cpu_events_total"] != nil || m["tablefull_conntrack_events_total"].v("counter=drop,") != 1100 {
		t.Errorf("without --per-cpu-series: per-CPU %v, summed drops %v", m["tablefull_conntrack_cpu_events_total"], m["tablefull_conntrack_events_total"])
	}
}

// TestExporterUnderLoad: parallel scrapes while samples arrive, clients
// that hang up mid-response, and the next scrape is whole; no goroutine
// is left behind.
func TestExporterUnderLoad(t *testing.T) {
	before := runtime.NumGoroutine()
	e := New("test")
	ctx, cancel := context.WithCancel(context.Background())
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	served := make(chan error, 1)
	e.Observe(sample(0, 4096, 4096, 0)) // a sample before the first scrape: there is a table to read
	go func() { served <- Serve(ctx, Web{Addresses: []string{addr}}, Handler(e, "")) }()
	url := "http://" + addr
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			e.Observe(sample(i, 4096, 4096, uint64(i)))
		}
	}()
	for range 4 { // within the in-flight limit with the hang-ups below
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				if m := scrape(t, url); m["tablefull_conntrack_entries"].v("") != 4096 {
					t.Errorf("a scrape under load: %v", m["tablefull_conntrack_entries"])
				}
			}
		}()
	}
	for range 20 { // a client that reads a little and hangs up
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		c.Write([]byte("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"))
		c.Read(make([]byte, 100))
		c.Close()
	}
	close(stop)
	wg.Wait()
	if m := scrape(t, url); m["tablefull_conntrack_entries"].v("") != 4096 {
		t.Errorf("the scrape after the hang-ups: %v", m["tablefull_conntrack_entries"])
	}
	if err := Serve(context.Background(), Web{Addresses: []string{addr}}, Handler(e, "")); err == nil || !strings.Contains(err.Error(), "address already in use") {
		t.Errorf("a second listener on %s: %v", addr, err)
	}
	cancel()
	if err := <-served; err != nil {
		t.Errorf("serve: %v", err)
	}
	http.DefaultClient.CloseIdleConnections()
	time.Sleep(200 * time.Millisecond)
	if after := runtime.NumGoroutine(); after > before+2 {
		t.Errorf("%d goroutines before, %d after", before, after)
	}
}

// TestExporterSlowClient: a client that sends half a request and waits
// holds no scrape up: the next scrape is answered at once.
func TestExporterSlowClient(t *testing.T) {
	e := New("test")
	e.Observe(sample(0, 500, 500, 0))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	go Serve(ctx, Web{Addresses: []string{addr}}, Handler(e, ""))
	var slow []net.Conn
	for deadline := time.Now().Add(5 * time.Second); len(slow) < 10 && time.Now().Before(deadline); {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			time.Sleep(10 * time.Millisecond)
			continue
		}
		c.Write([]byte("GET /metrics HTTP/1.1\r\nHost: x\r\n")) // and never the end of the headers
		slow = append(slow, c)
	}
	defer func() {
		for _, c := range slow {
			c.Close()
		}
	}()
	start := time.Now()
	if m := scrape(t, "http://"+addr); m["tablefull_conntrack_entries"].v("") != 500 {
		t.Errorf("a scrape beside ten slow clients: %v", m["tablefull_conntrack_entries"])
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("a scrape beside ten slow clients took %s", took)
	}
}

// counted gives a sample the holds and the events of second i: 700 UDP
// lookups a second, each ending as a single-shot UDP entry.
func counted(s tf.Sample, i int) tf.Sample {
	s.Conntrack.Holds = tf.ClassCounts{120, 120, 432000, 30, 120, 30, 600}
	s.Entries = tf.Entries{Source: tf.EntriesEvents, Epoch: 1}
	s.Entries.New[tf.ProtoUDP] = uint64(700 * i)
	s.Entries.Ended[tf.ClassUDPSingle] = uint64(700 * i)
	s.Entries.Evicted[tf.ClassUDPSingle] = uint64(7 * i)
	return s
}

// TestExporterClasses: new entries by class are counters while events
// are counted and absent while they are not; holds are gauges by class.
func TestExporterClasses(t *testing.T) {
	e := New("test")
	srv := httptest.NewServer(Handler(e, ""))
	defer srv.Close()
	e.Observe(sample(0, 500, 500, 0))
	e.Observe(sample(1, 500, 500, 0))
	m := scrape(t, srv.URL)
	if m["tablefull_conntrack_new_entries_total"] != nil || m["tablefull_conntrack_evicted_entries_total"] != nil || m["tablefull_up"].v("part=entries,") != 0 {
		t.Errorf("not counted, yet new entries %v (up %v)", m["tablefull_conntrack_new_entries_total"], m["tablefull_up"].v("part=entries,"))
	}
	for i := 2; i < 6; i++ {
		e.Observe(counted(sample(i, 4000, 4000, 0), i))
	}
	m = scrape(t, srv.URL)
	if got := m["tablefull_conntrack_new_entries_total"].v("class=udp,"); got != 2100 {
		t.Errorf("udp new entries %v, want 3 counted seconds × 700", got)
	}
	if got := m["tablefull_conntrack_evicted_entries_total"].v("class=udp,"); got != 21 {
		t.Errorf("udp evicted %v, want 3 counted seconds × 7", got)
	}
	if got := m["tablefull_conntrack_class_hold_seconds"].v("class=udp,"); got != 30 {
		t.Errorf("udp hold %v, want 30", got)
	}
	if m["tablefull_up"].v("part=entries,") != 1 {
		t.Errorf("entries not up while counted")
	}
}
