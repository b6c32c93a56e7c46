package exporter

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	clientmodel "github.com/prometheus/client_model/go"
)

// cachedGatherer gathers the registry once per sample the exporter
// observed and hands every scrape until the next sample the same
// families: read-only once gathered, so concurrent encodes share them.
type cachedGatherer struct {
	reg *prometheus.Registry
	e   *Exporter

	mu       sync.Mutex // one gathering at a time; the others wait for it
	seq      uint64
	families []*clientmodel.MetricFamily
	err      error
}

// Gather implements prometheus.Gatherer.
func (g *cachedGatherer) Gather() ([]*clientmodel.MetricFamily, error) {
	seq := g.e.seqNow()
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.families == nil || seq != g.seq {
		g.families, g.err = g.reg.Gather()
		g.seq = seq
	}
	return g.families, g.err
}
