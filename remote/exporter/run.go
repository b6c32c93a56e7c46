package exporter

import (
	"context"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/tablefull/tablefull/model"
)

// Config is how tablefull exporter runs: where and how it serves (Web),
// the exposition's path, the window every scraper reads, the per-CPU
// series, the heartbeat file and the build it labels.
type Config struct {
	Web
	// Path is the exposition's (--web.telemetry-path).
	Path   string
	Window time.Duration
	PerCPU bool
	// Heartbeat is the file touched at each sample ("": none).
	Heartbeat         string
	Version, Revision string
	// What names the table served, in the line that says where it is.
	What string
}

// Run exports feed's samples and serves them until ctx ends (a signal),
// saying on stderr where it listens once it does and why it stops, as a
// service's journal should read them.
func Run(ctx context.Context, feed model.Feed, c Config, stderr io.Writer) error {
	if c.Heartbeat != "" {
		hb, err := NewHeartbeat(feed, c.Heartbeat)
		if err != nil {
			return err
		}
		feed = hb
	}
	e := New(c.Version, c.Window)
	e.Revision, e.PerCPU = c.Revision, c.PerCPU
	go e.Follow(feed, time.Now())
	scheme := "http"
	if c.ConfigFile != "" {
		scheme = "http(s, as " + c.ConfigFile + " says)"
	}
	err := Serve(ctx, c.Web, Handler(e, c.Path), func(a net.Addr) {
		fmt.Fprintf(stderr, "tablefull exporter %s: serving %s on %s://%s%s\n", c.Version, c.What, scheme, a, c.Path)
	})
	if ctx.Err() != nil {
		fmt.Fprintf(stderr, "tablefull exporter: stopping (%v)\n", context.Cause(ctx))
	}
	return err
}
