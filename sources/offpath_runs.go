package sources

import (
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/knob"
)

// started are the attribution runs (offPath) one sample started, to take
// once its own counts are read.
type started struct {
	listen, ports, who, ns, drift bool
	// nearRange: the TCP sockets came near the port range, so the ports
	// by destination were asked for (a quiet host starts no dump).
	nearRange bool
}

// startOffPath starts the attribution s calls for beside the sample: the
// pressed listeners, the ports by destination, the probes' owners, the
// other namespaces and the drift check. tcpRead says s's TCP was read.
func (c *Collector) startOffPath(now time.Time, s model.Sample, tcpRead bool) started {
	tcp, capMax, own, buckets := s.TCP, s.Conntrack.Max, s.Conntrack.Count, s.Conntrack.Buckets
	var st started
	st.listen = c.listenRun.start(func() *model.Listeners { return c.listen.Read(tcp, tcpRead) })
	inUse := c.tcp.InUse()
	if st.nearRange = tcpRead && model.PortsWorthReading(tcp, inUse); st.nearRange {
		st.ports = c.portsRun.start(func() *model.PortUse { return c.ports.Read(now, tcp, tcpRead, inUse) })
	}
	st.who = c.whoRun.start(c.who.Read)
	if c.namespaces != nil {
		st.ns = c.nsRun.start(func() *model.Namespaces {
			c.namespaces.Hash(own, buckets)
			if ns := c.namespaces.Read(now, capMax); len(ns.Rows) > 0 || ns.Note != "" { // none: nothing to say
				return ns
			}
			return nil
		})
	}
	if c.drift != nil {
		st.drift = c.driftRun.start(func() *knob.Drifts { return c.drift.Read(now) })
	}
	return st
}

// takeOffPath puts the newest attribution into s, noting each past its
// budget.
func (c *Collector) takeOffPath(st started, s *model.Sample, notes *[]string) {
	var late time.Duration
	s.Listeners, late = c.listenRun.take(st.listen)
	lateAs(notes, "the listener lookup", late)
	if st.nearRange {
		s.Ports, late = c.portsRun.take(st.ports)
		lateAs(notes, "the ports by destination", late)
	}
	s.Who, late = c.whoRun.take(st.who)
	lateAs(notes, "the probes' owner lookup", late)
	if c.namespaces != nil {
		s.Namespaces, late = c.nsRun.take(st.ns)
		lateAs(notes, "the namespace walk", late)
	}
	if c.drift != nil {
		s.Drift, late = c.driftRun.take(st.drift)
		lateAs(notes, "the drift check", late)
	}
}
