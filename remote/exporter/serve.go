package exporter

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// DefaultListen is where the exporter listens unless told otherwise:
// loopback only, on tablefull's port in the exporters' 9100–9999 range.
const DefaultListen = "127.0.0.1:9874"

// IdleTimeout is how long the server keeps an idle scrape connection
// open: longer than any sane scrape interval, so Prometheus's kept-alive
// connection is not closed between scrapes (a full table may refuse a
// new one).
const IdleTimeout = 10 * time.Minute

// Handler serves /metrics (the exporter, plus the Go runtime and process
// metrics of the exporter itself) and a page on / that says what this is.
func Handler(e *Exporter) http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(e, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{
		ErrorHandling:       promhttp.ContinueOnError,
		MaxRequestsInFlight: 8,
		Timeout:             10 * time.Second,
	}))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html><head><title>tablefull exporter</title></head><body>
<h1>tablefull exporter</h1>
<p>The conntrack table of this host for Prometheus: entries, cap, the peak between scrapes, per-CPU drops,
time pinned at the cap, the kernel's "table full" lines and the console's verdicts (version %s).</p>
<p><a href="/metrics">/metrics</a></p></body></html>
`, html.EscapeString(e.version))
	})
	return mux
}

// Serve listens on addr and serves h until ctx ends. A listen error (the
// address in use, a bad address) comes back at once.
func Serve(ctx context.Context, addr string, h http.Handler, listening ...func(net.Addr)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen %s: %w", addr, err)
	}
	for _, f := range listening {
		f(ln.Addr())
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, WriteTimeout: 30 * time.Second, IdleTimeout: IdleTimeout}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("serve %s: %w", addr, err)
	case <-ctx.Done():
		shut, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		err := srv.Shutdown(shut)
		if errors.Is(<-done, http.ErrServerClosed) && err == nil {
			return nil
		}
		return err
	}
}
