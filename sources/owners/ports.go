package owners

import (
	"net/netip"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/tally"
)

// tcpTimeWait is sock_diag's state number of a TIME_WAIT socket.
const tcpTimeWait = 6

// PortWatch reads the local ports connect() took, by destination, when
// the namespace's TCP sockets come near its port range
// (model.PortsWorthReading), at most once a PortsEvery: a quiet host
// pays nothing, and a host near the range one dump a second.
type PortWatch struct {
	// dump is the socket dump (nil: never, as on a fixture's root).
	dump  *SocketDump
	last  time.Time
	kept  *model.PortUse
	every time.Duration
}

// PortsEvery is how often the ports by destination are read while they
// are worth reading.
const PortsEvery = time.Second

// NewPortWatch watches the ports of the namespace whose processes are
// under proc: the real kernel's only.
func NewPortWatch(proc string) PortWatch {
	if !KernelRoot(proc) {
		return PortWatch{}
	}
	return PortWatch{dump: &SocketDump{Timeout: 2 * time.Second}, every: PortsEvery}
}

// Read returns the ports by destination when t (read, with inUse sockets
// but TIME_WAIT ones) comes near the port range: read again once
// PortsEvery has passed, the last read otherwise; nil when not near it,
// or when t was not read.
func (w *PortWatch) Read(now time.Time, t model.TCP, read bool, inUse uint64) *model.PortUse {
	if !read || w.dump == nil || !model.PortsWorthReading(t, inUse) {
		w.kept = nil
		return nil
	}
	if w.kept != nil && now.Sub(w.last) < w.every {
		return w.kept
	}
	u, err := CountPorts(func(states uint32, each func(SocketRow)) error {
		return w.dump.Each(unix.IPPROTO_TCP, states, each)
	}, t.PortRange)
	if err != nil {
		return nil // not read is not none: the verdict says nothing
	}
	w.kept, w.last = &u, now
	return w.kept
}

// CountPorts counts the TCP sockets that dump lists (by state mask) into
// the local ports each destination holds: a socket whose local port is in
// portRange and is no listener's took its port with connect() (or
// bind()); the others are inbound and take none. At most
// model.MaxPortDests destinations are kept, busiest first, counted by a
// bounded sketch.
func CountPorts(dump func(states uint32, each func(SocketRow)) error, portRange [2]uint64) (model.PortUse, error) {
	listening := map[uint16]bool{}
	if err := dump(1<<tcpListen, func(r SocketRow) { listening[r.Local.Port()] = true }); err != nil {
		return model.PortUse{}, err
	}
	type pair struct {
		src netip.Addr
		dst netip.AddrPort
	}
	var all, tw tally.Sketch[pair]
	var u model.PortUse
	lo, hi := portRange[0], portRange[1]
	err := dump(allStates&^(1<<tcpListen), func(r SocketRow) {
		p := uint64(r.Local.Port())
		if p < lo || p > hi || listening[r.Local.Port()] {
			u.Inbound++
			return
		}
		u.Outbound++
		k := pair{r.Local.Addr().Unmap(), netip.AddrPortFrom(r.Remote.Addr().Unmap(), r.Remote.Port())}
		all.Add(k)
		if r.State == tcpTimeWait {
			tw.Add(k)
		}
	})
	if err != nil {
		return model.PortUse{}, err
	}
	u.Approximate = all.Overflowed()
	name := func(k pair) string { return k.src.String() + " " + k.dst.String() }
	twBy := map[string]int{}
	for _, c := range tw.Top(tally.SketchSize, name) {
		twBy[c.Key] = c.N
	}
	for _, c := range all.Top(model.MaxPortDests, name) {
		src, dst, _ := strings.Cut(c.Key, " ")
		u.Dests = append(u.Dests, model.DestPorts{Src: src, Dst: dst, Ports: c.N, TimeWait: twBy[c.Key]})
	}
	return u, nil
}
