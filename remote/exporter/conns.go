package exporter

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"sync"
	"time"
)

// DefaultMaxConns caps the exporter's open connections: Prometheus keeps
// one per replica, an operator's curl one more. At about 20 KiB each
// (two buffers, a goroutine, headers bounded by MaxHeaderBytes) the cap
// is a few MiB, whatever clients open.
const DefaultMaxConns = 128

// MaxHeaderBytes bounds a request's headers (a scrape's are a few hundred
// bytes; Go's server allows 4 KiB more).
const MaxHeaderBytes = 8 << 10

// connLimit is a listener that keeps at most max connections open. At the
// cap a new connection closes the oldest one that is not being answered
// (idle between scrapes, silent, or still sending its request: a client
// that drips headers holds nothing); when every one is being answered,
// the new one is closed instead.
type connLimit struct {
	net.Listener
	max int

	mu    sync.Mutex
	conns map[net.Conn]*connEntry
}

// connEntry is a connection's state: being answered (the handler runs),
// and since when it has not been.
type connEntry struct {
	serving bool
	since   time.Time
}

func newConnLimit(ln net.Listener, max int) *connLimit {
	if max <= 0 {
		max = DefaultMaxConns
	}
	return &connLimit{Listener: ln, max: max, conns: map[net.Conn]*connEntry{}}
}

// Accept implements net.Listener.
func (l *connLimit) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		l.mu.Lock()
		if len(l.conns) >= l.max {
			victim := l.oldestInactive()
			if victim == nil {
				l.mu.Unlock()
				c.Close() // every one is serving: the newcomer waits for none
				continue
			}
			delete(l.conns, victim)
			victim.Close()
		}
		l.conns[c] = &connEntry{since: time.Now()}
		l.mu.Unlock()
		return c, nil
	}
}

// oldestInactive is the connection not being answered that has been so
// the longest, or nil.
func (l *connLimit) oldestInactive() net.Conn {
	var victim net.Conn
	var since time.Time
	for c, e := range l.conns {
		if !e.serving && (victim == nil || e.since.Before(since)) {
			victim, since = c, e.since
		}
	}
	return victim
}

// unwrap is the connection Accept returned: TLS wraps it.
func unwrap(c net.Conn) net.Conn {
	if t, ok := c.(*tls.Conn); ok {
		return t.NetConn()
	}
	return c
}

// track is the server's ConnState hook.
func (l *connLimit) track(c net.Conn, s http.ConnState) {
	c = unwrap(c)
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.conns[c]
	if !ok {
		return
	}
	switch s {
	case http.StateIdle:
		e.since = time.Now()
	case http.StateClosed, http.StateHijacked:
		delete(l.conns, c)
	}
}

// connKey carries a request's connection in its context (ConnContext).
type connKey struct{}

// connContext is the server's ConnContext hook: the handler learns its
// connection.
func connContext(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, unwrap(c))
}

// serving marks a request's connection as being answered while h runs:
// the cap then closes others first.
func (l *connLimit) serving(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, _ := r.Context().Value(connKey{}).(net.Conn)
		l.set(c, true)
		defer l.set(c, false)
		h.ServeHTTP(w, r)
	})
}

func (l *connLimit) set(c net.Conn, serving bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e, ok := l.conns[c]; ok {
		e.serving, e.since = serving, time.Now()
	}
}
