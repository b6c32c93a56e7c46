package exporter

import (
	"context"
	"fmt"
	"io"
	"net"
	"time"

	flag "github.com/spf13/pflag"

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
	// Netns is the network namespace exported through its agent ("":
	// this host's).
	Netns string
	// Owners is when the owners' series are served (OwnersAuto,
	// OwnersAlways, OwnersNever).
	Owners string
	// Journal is the deletions' journal in the state directory ("": not
	// followed).
	Journal string
	// listen is --listen's addresses, served beside Addresses.
	listen []string
}

// AddFlags registers the exporter's flags on fs, each filling c: the
// exporter-toolkit's web flags as every Prometheus exporter takes them,
// the connection cap, the window, the per-CPU series and the heartbeat.
func (c *Config) AddFlags(fs *flag.FlagSet) {
	fs.StringArrayVar(&c.Addresses, "web.listen-address", nil, "serve on `ADDR` (repeatable; default "+DefaultListen+": another address than loopback is your choice to make)")
	fs.StringArrayVar(&c.listen, "listen", nil, "the same as --web.listen-address (`ADDR`)")
	fs.StringVar(&c.ConfigFile, "web.config.file", "", "exporter-toolkit web config `FILE`: TLS, client certificates, basic auth")
	fs.StringVar(&c.Path, "web.telemetry-path", "/metrics", "`PATH` of the exposition")
	fs.IntVar(&c.MaxConns, "web.max-connections", DefaultMaxConns, "at most `N` open connections (the oldest idle closed first)")
	fs.DurationVar(&c.Window, "window", DefaultWindow, "the peak and held verdicts cover this trailing `span`, for every scraper alike")
	fs.BoolVar(&c.PerCPU, "per-cpu-series", false, "also serve each CPU's conntrack counters (a series per CPU and counter; their sums are always served)")
	fs.StringVar(&c.Heartbeat, "heartbeat", "", "touch `FILE` at each sample, for `tablefull alive` (a liveness probe that opens no connection)")
	fs.StringVar(&c.Owners, "owner-series", OwnersAuto, "serve the owners' series (process names, cgroups, pods, destinations): `auto` only on loopback or behind a web config requiring TLS and authentication, always, never")
	fs.StringVar(&c.Netns, "netns", "", "export network namespace `NAME|PATH` instead of this one (through its agent)")
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
	c.Addresses = append(c.Addresses, c.listen...)
	if c.Owners != OwnersAuto && c.Owners != OwnersAlways && c.Owners != OwnersNever && c.Owners != "" {
		return fmt.Errorf("--owner-series %q: want auto, always or never", c.Owners)
	}
	e := New(c.Version, c.Window)
	e.Revision, e.PerCPU, e.Log = c.Revision, c.PerCPU, stderr
	if c.Journal != "" {
		e.Journal = &Journal{Path: c.Journal}
	}
	var why string
	if e.Owners, why = c.ownersServed(); !e.Owners {
		fmt.Fprintf(stderr, "tablefull exporter: the owners' series are not served: %s\n", why)
	}
	go e.Follow(feed, time.Now())
	what := "this host's conntrack table"
	if c.Netns != "" {
		what = "network namespace " + c.Netns + "'s conntrack table (through its agent)"
	}
	scheme := "http"
	if c.ConfigFile != "" {
		scheme = "http(s, as " + c.ConfigFile + " says)"
	}
	err := Serve(ctx, c.Web, Handler(e, c.Path), func(a net.Addr) {
		fmt.Fprintf(stderr, "tablefull exporter %s: serving %s on %s://%s%s\n", c.Version, what, scheme, a, c.Path)
	})
	if ctx.Err() != nil {
		fmt.Fprintf(stderr, "tablefull exporter: stopping (%v)\n", context.Cause(ctx))
	}
	return err
}
