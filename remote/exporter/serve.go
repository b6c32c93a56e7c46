package exporter

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/exporter-toolkit/web"
)

// DefaultListen is where the exporter listens unless told otherwise:
// loopback only, on tablefull's port in the exporters' 9100–9999 range.
const DefaultListen = "127.0.0.1:9874"

// IdleTimeout is how long the server keeps an idle scrape connection
// open: longer than any sane scrape interval, so Prometheus's kept-alive
// connection is not closed between scrapes (a full table may refuse a
// new one). The connection cap closes the oldest idle ones first.
const IdleTimeout = 10 * time.Minute

// Handler serves the exposition on path (the exporter, plus the Go
// runtime and process metrics of the exporter itself) and a page on /
// that says what this is. The exposition is gathered once per sample and
// served to every scraper from there (cachedGatherer): a flood of scrapes
// costs the writes, not a collection each, and every scraper between two
// samples reads the same numbers.
func Handler(e *Exporter, path string) http.Handler {
	if path == "" {
		path = "/metrics"
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(e, collectors.NewGoCollector())
	reg.MustRegister(newSelfCollector("/proc", os.Getpid())) // no /proc: no process_* series
	mux := http.NewServeMux()
	mux.Handle(path, promhttp.HandlerFor(&cachedGatherer{reg: reg, e: e}, promhttp.HandlerOpts{
		ErrorHandling: promhttp.ContinueOnError,
		// No Timeout: promhttp's runs the handler in a goroutine of its
		// own behind a timer and copies the buffered answer, a third of a
		// scrape's CPU, to bound a gathering that here reads the samples
		// already taken and the process's own stat line. The server's
		// write timeout bounds a slow scraper.
		EnableOpenMetrics: true, // a scraper that asks for OpenMetrics gets it
		// The exposition is tens of kB: gzip's compressor (about 1 MB of
		// tables a scrape, the exporter's largest allocation) costs the
		// host more than the bytes it saves on a scrape every 15 s.
		DisableCompression: true,
	}))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html><head><title>tablefull exporter</title></head><body>
<h1>tablefull exporter</h1>
<p>The conntrack table of this host for Prometheus: entries, cap, the peak over the last %s, per-CPU drops,
time pinned at the cap, the kernel's "table full" lines and the console's verdicts (version %s).</p>
<p><a href="%s">%s</a></p></body></html>
`, e.Window(), html.EscapeString(e.version), html.EscapeString(path), html.EscapeString(path))
	})
	return mux
}

// Web is where and how the exporter serves: the addresses
// (--web.listen-address, --listen), the exporter-toolkit web config file
// (TLS, client certificates, basic auth) and the connection cap.
type Web struct {
	Addresses  []string
	ConfigFile string
	MaxConns   int
	// ReadTimeout bounds reading a request, body included (0: 10 s).
	ReadTimeout time.Duration
}

// newServer is the server of one listener: headers bounded, the request
// read within w's read timeout, idle connections kept for IdleTimeout and
// tracked by the connection cap.
func newServer(h http.Handler, l *connLimit, w Web) *http.Server {
	read := w.ReadTimeout
	if read <= 0 {
		read = 10 * time.Second
	}
	return &http.Server{Handler: l.serving(h), ReadHeaderTimeout: min(5*time.Second, read), ReadTimeout: read,
		WriteTimeout: 30 * time.Second, IdleTimeout: IdleTimeout, MaxHeaderBytes: MaxHeaderBytes, ConnState: l.track, ConnContext: connContext,
		ErrorLog: log.New(io.Discard, "", 0)} // a peer's bad handshake or header is its problem, not a line on stderr
}

// shutdownGrace is how long a stopping exporter lets scrapes in flight
// finish (a loaded host's took over 2 s).
const shutdownGrace = 5 * time.Second

// Serve listens on every address of w and serves h until ctx ends. A
// listen error (the address in use, a bad address, a bad web config)
// comes back at once.
func Serve(ctx context.Context, w Web, h http.Handler, listening ...func(net.Addr)) error {
	if len(w.Addresses) == 0 {
		w.Addresses = []string{DefaultListen}
	}
	if w.ConfigFile != "" {
		if err := checkWebConfig(w.ConfigFile); err != nil {
			return err
		}
	}
	var limits []*connLimit
	for _, addr := range w.Addresses {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			for _, l := range limits {
				l.Close()
			}
			return fmt.Errorf("listen %s: %w", addr, err)
		}
		limits = append(limits, newConnLimit(ln, w.MaxConns))
		for _, f := range listening {
			f(ln.Addr())
		}
	}
	done := make(chan error, len(limits))
	var servers []*http.Server
	for _, l := range limits {
		srv := newServer(h, l, w)
		servers = append(servers, srv)
		cfg := w.ConfigFile
		flags := &web.FlagConfig{WebConfigFile: &cfg}
		go func(l *connLimit) { done <- web.Serve(l, srv, flags, slog.New(slog.NewTextHandler(io.Discard, nil))) }(l)
	}
	select {
	case err := <-done:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
		shut, cancel := context.WithTimeout(context.Background(), shutdownGrace)
		defer cancel()
		var errs []error
		for _, srv := range servers {
			errs = append(errs, srv.Shutdown(shut))
		}
		for range servers {
			if err := <-done; !errors.Is(err, http.ErrServerClosed) {
				errs = append(errs, err)
			}
		}
		return errors.Join(errs...)
	}
}

// checkWebConfig reads the web config file before any listener opens, so
// a bad one is an error at start, not at the first scrape.
func checkWebConfig(path string) error {
	if err := web.Validate(path); err != nil {
		return fmt.Errorf("web config %s: %w", path, err)
	}
	return nil
}
