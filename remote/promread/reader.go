// Package promread is the Prometheus reader transport of tablefull's
// samples: the fleet's rows from a handful of instant queries, and one
// instance's history from range queries, turned into the samples the
// stream carries so the console judges them with the same analyzer.
package promread

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/common/config"
	pmodel "github.com/prometheus/common/model"
)

// Config says where Prometheus is and how to reach it. Secrets come from
// files or the environment, never from the command line, and are never
// printed.
type Config struct {
	URL string
	// Selector narrows the instances: label matchers as inside braces,
	// e.g. `job="tablefull",env="prod"`.
	Selector string
	// Window is how far back the fleet view looks (peak, pinned time,
	// episodes).
	Window time.Duration
	// BasicUser and BasicPassword, or BearerToken, authenticate; CAFile
	// is the CA of a TLS Prometheus.
	BasicUser, BasicPassword string
	BearerToken              string
	CAFile                   string
	// Alertmanager is where the fleet's alerts are read as silenced or
	// inhibited ("": not read; Prometheus's ALERTS still lists them).
	Alertmanager string
}

// Reader queries one Prometheus.
type Reader struct {
	api    apiClient
	sel    string
	window time.Duration
	where  string
	// cut counts the points of range answers left out as not asked for.
	cut int
	// meter counts the answers' bytes and the reader's own time.
	meter *meter
	// am is the Alertmanager asked what it does with the alerts (nil:
	// none); amNote why it was not read at the last refresh (guarded by
	// mu: refreshes may overlap).
	am     *alertmanager
	mu     sync.Mutex
	amNote string
	// unrecorded is when a refresh last found no fresh recordings of the
	// fleet (zero: none has yet; guarded by mu).
	unrecorded time.Time
}

// ErrSelector reports a selector tablefull will not put into a query.
var ErrSelector = errors.New("bad selector")

// New builds a reader. The URL's user and password, when present, are
// taken out of it and used as basic auth.
func New(c Config) (*Reader, error) {
	u, err := url.Parse(c.URL)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("--prometheus %s: want http[s]://host:port", redact(c.URL))
	}
	hc := config.HTTPClientConfig{}
	if u.User != nil {
		c.BasicUser = u.User.Username()
		if p, ok := u.User.Password(); ok {
			c.BasicPassword = p
		}
		u.User = nil
	}
	if c.BasicUser != "" {
		hc.BasicAuth = &config.BasicAuth{Username: c.BasicUser, Password: config.Secret(c.BasicPassword)}
	}
	if c.BearerToken != "" {
		hc.Authorization = &config.Authorization{Type: "Bearer", Credentials: config.Secret(c.BearerToken)}
	}
	if c.CAFile != "" {
		hc.TLSConfig = config.TLSConfig{CAFile: c.CAFile}
	}
	rt, err := config.NewRoundTripperFromConfig(hc, "tablefull")
	if err != nil {
		return nil, fmt.Errorf("prometheus client: %w", err)
	}
	m := new(meter)
	client := apiClient{base: u, hc: &http.Client{Transport: boundedTransport{rt: rt, max: MaxAnswerBytes}}, meter: m}
	sel, err := selector(c.Selector)
	if err != nil {
		return nil, err
	}
	if c.Window <= 0 {
		c.Window = time.Hour
	}
	am, err := newAlertmanager(c.Alertmanager)
	if err != nil {
		return nil, err
	}
	return &Reader{api: client, sel: sel, window: c.Window, where: u.String(), am: am, meter: m}, nil
}

// AlertmanagerNote is why the last refresh could not read Alertmanager
// ("": it did, or none was given): the alerts are then listed firing,
// neither silenced nor inhibited known.
func (r *Reader) AlertmanagerNote() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.amNote
}

// Where is Prometheus's address, without credentials.
func (r *Reader) Where() string { return r.where }

// selector checks the user's matchers: braces are optional, and a brace
// or a newline inside them is refused (the matchers are placed inside
// tablefull's own braces).
func selector(s string) (string, error) {
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(strings.TrimPrefix(s, "{"), "}")
	if strings.ContainsAny(s, "{}\n") {
		return "", fmt.Errorf("%w %q: want label matchers such as job=\"tablefull\"", ErrSelector, s)
	}
	return s, nil
}

// with is the selector joined to tablefull's own matchers.
func (r *Reader) with(matchers string) string { return scope(r.sel).with(matchers) }

// instant runs one instant query, counted in m; an answer with more
// series than the fleet's instance limit allows is refused.
func (r *Reader) instant(ctx context.Context, m *meter, q string, at time.Time) (pmodel.Vector, error) {
	api := r.api
	api.meter = m
	v, err := answer[pmodel.Vector](m, r.where, "a vector", func() (pmodel.Value, error) {
		return api.query(ctx, q, at)
	})
	if err == nil {
		err = checkVector(v)
	}
	return v, err
}

// ranged runs one range query and keeps of its answer what was asked
// for (boundMatrix), counting in r.cut the points left out.
func (r *Reader) ranged(ctx context.Context, q string, rng queryRange) (pmodel.Matrix, error) {
	m, err := answer[pmodel.Matrix](r.meter, r.where, "a matrix", func() (pmodel.Value, error) {
		return r.api.queryRange(ctx, q, rng)
	})
	if err != nil {
		return nil, err
	}
	m, cut, err := boundMatrix(m, rng)
	r.cut += cut
	return m, err
}

// answer counts in m and runs one query to where, and checks its answer
// is a T.
func answer[T pmodel.Value](m *meter, where, want string, query func() (pmodel.Value, error)) (T, error) {
	m.queries.Add(1)
	var zero T
	v, err := query()
	if err != nil {
		return zero, fmt.Errorf("query %s: %w", where, err)
	}
	t, ok := v.(T)
	if !ok {
		return zero, fmt.Errorf("query %s: a %s, not %s", where, v.Type(), want)
	}
	return t, nil
}

// redact is a URL without its password, for messages.
func redact(s string) string {
	if u, err := url.Parse(s); err == nil {
		return u.Redacted()
	}
	return "(unparsable URL)"
}
