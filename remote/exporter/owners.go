package exporter

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/safe"
	"github.com/tablefull/tablefull/remote/metrics"
)

// attribution is the newest census's owners and pressed listeners the
// exporter still stands by.
type attribution struct {
	owners      *model.Owners
	ownersAt    time.Time
	listeners   *model.Listeners
	listenersAt time.Time
}

// observe keeps what s carries.
func (a *attribution) observe(s model.Sample) {
	if c := s.Census; c != nil && c.Error == "" && c.Owners != nil && c.Owners.Error == "" {
		a.owners, a.ownersAt = c.Owners, s.Time
	}
	if l := s.Listeners; l != nil && l.Error == "" {
		a.listeners, a.listenersAt = l, s.Time
	}
}

// fresh is what is still fresh at now (diagnose.CensusFresh).
func (a attribution) fresh(now time.Time) attribution {
	if now.Sub(a.ownersAt) > diagnose.CensusFresh {
		a.owners = nil
	}
	if now.Sub(a.listenersAt) > diagnose.CensusFresh {
		a.listeners = nil
	}
	return a
}

// collect writes the owners' and listeners' series, one per label set
// (owners that share one are summed: a duplicate would fail the scrape).
func (a attribution) collect(gauge func(*prometheus.Desc, float64, ...string)) {
	if o := a.owners; o != nil {
		type key struct{ comm, cgroup, pod, netns, role string }
		sums, order := map[key]int{}, []key{}
		for _, c := range o.Top {
			k := key{comm: safe.Text(c.Comm, 32), role: "opened"}
			k.cgroup, k.pod, k.netns = ownerLabels(c.Owner)
			switch {
			case c.Accepted:
				k.role = "accepted"
			case c.Served:
				k.role = "served"
			case c.Forwarded:
				k.role = "forwarded"
			}
			if _, ok := sums[k]; !ok {
				order = append(order, k)
			}
			sums[k] += c.N
		}
		for _, k := range order {
			gauge(descOf(metrics.OwnerEntries), float64(sums[k]), k.comm, k.cgroup, k.pod, k.netns, k.role)
		}
	}
	if l := a.listeners; l != nil {
		seen := map[[2]string]bool{}
		for _, p := range l.Pressed {
			k := [2]string{safe.Text(p.Addr, 64), safe.Text(p.Owner.Comm, 32)}
			if seen[k] {
				continue
			}
			seen[k] = true
			gauge(descOf(metrics.ListenQueue), float64(p.Queue), k[0], k[1])
			gauge(descOf(metrics.ListenBacklog), float64(p.Backlog), k[0], k[1])
		}
	}
}

// ownerLabels are an owner's group as labels: a pod's UID, another
// network namespace's name (model.NamespaceName), or else its cgroup.
func ownerLabels(o model.Owner) (cgroup, pod, netns string) {
	switch o.Kind {
	case "pod":
		return "", safe.Text(o.Group, 64), ""
	case "netns":
		return "", "", safe.Text(o.Group, 64)
	}
	return safe.Text(o.Group, 128), "", ""
}
