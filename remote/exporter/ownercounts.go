package exporter

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/safe"
	"github.com/tablefull/tablefull/remote/metrics"
)

// Bounds of the owners' counters: how many label sets each keeps, and how
// long one that counts nothing more is kept.
const (
	maxOwnerSeries  = 50
	ownerSeriesIdle = 15 * time.Minute
)

// ownerKey is one label set of the owners' counters (unused labels empty).
type ownerKey struct{ comm, cgroup, pod, netns, peer string }

// ownerCount is a label set's count since it was first kept, and when it
// last rose.
type ownerCount struct {
	n    float64
	rose time.Time
}

// ownerCounters are the probes' counts since the exporter started, by
// label set: new connections and the table's drops. Their memory and the
// series they make are bounded by maxOwnerSeries each.
type ownerCounters struct {
	conns, drops map[ownerKey]*ownerCount
}

// observe adds one interval's counts, at time at.
func (c *ownerCounters) observe(w *model.Who, at time.Time) {
	if !w.On() {
		return
	}
	if c.conns == nil {
		c.conns, c.drops = map[ownerKey]*ownerCount{}, map[ownerKey]*ownerCount{}
	}
	for _, f := range w.Conns {
		cg, pod, netns := ownerLabels(f.Owner)
		add(c.conns, ownerKey{safe.Text(f.Comm, 32), cg, pod, netns, safe.Text(f.DestText(), 64)}, float64(f.Opened), at)
	}
	for _, d := range w.Drops {
		cg, pod, netns := ownerLabels(d.Owner)
		add(c.drops, ownerKey{cgroup: cg, pod: pod, netns: netns}, float64(d.N), at)
	}
	expire(c.conns, at)
	expire(c.drops, at)
}

// add counts n for k, making room for a new label set by the one that
// rose longest ago.
func add(m map[ownerKey]*ownerCount, k ownerKey, n float64, at time.Time) {
	if n <= 0 {
		return
	}
	cur, ok := m[k]
	if !ok {
		if len(m) >= maxOwnerSeries {
			var oldest ownerKey
			var when time.Time
			for key, v := range m {
				if when.IsZero() || v.rose.Before(when) {
					oldest, when = key, v.rose
				}
			}
			delete(m, oldest)
		}
		cur = &ownerCount{}
		m[k] = cur
	}
	cur.n += n
	cur.rose = at
}

// expire forgets the label sets that rose no more for ownerSeriesIdle.
func expire(m map[ownerKey]*ownerCount, at time.Time) {
	for k, v := range m {
		if at.Sub(v.rose) > ownerSeriesIdle {
			delete(m, k)
		}
	}
}

// copied is c for one scrape.
func (c ownerCounters) copied() ownerCounters {
	cp := func(m map[ownerKey]*ownerCount) map[ownerKey]*ownerCount {
		out := make(map[ownerKey]*ownerCount, len(m))
		for k, v := range m {
			n := *v
			out[k] = &n
		}
		return out
	}
	return ownerCounters{conns: cp(c.conns), drops: cp(c.drops)}
}

// collect writes the counters while the probes count (on).
func (c ownerCounters) collect(counter func(*prometheus.Desc, float64, ...string), on bool) {
	if !on {
		return
	}
	for k, v := range c.conns {
		counter(descOf(metrics.OwnerNew), v.n, k.comm, k.cgroup, k.pod, k.netns, k.peer)
	}
	for k, v := range c.drops {
		counter(descOf(metrics.OwnerDrops), v.n, k.cgroup, k.pod, k.netns)
	}
}
