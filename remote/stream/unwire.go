package stream

import (
	"math"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/safe"
	"github.com/tablefull/tablefull/model/tally"
	"github.com/tablefull/tablefull/model/tuning"
)

func fromMS(v int64) time.Time { return time.UnixMilli(v) }

// fromWire turns a decoded sample back into a model.Sample, checking every
// array's shape so that a damaged line is an error, not a panic.
// Rows, strings and the census are bounded (limits.go): a sample over the
// limits is an ErrTooBig error and is dropped.
func fromWire(rec *record) (model.Sample, error) {
	w := &rec.wireSample
	if err := checkRows(w); err != nil {
		return model.Sample{}, err
	}
	s := rec.parts
	for _, f := range vocabulary {
		if f.part != nil {
			if err := f.part.keep(&s); err != nil {
				return model.Sample{}, err
			}
		}
	}
	s.Time, s.Interval, s.Absent = fromMS(w.TimeMS), time.Duration(w.IntervalMS)*time.Millisecond, w.Absent.Valid()
	s.Notes = boundStrings(w.Notes, MaxNotes)
	if w.Table != nil {
		c := w.Table
		s.Conntrack = model.Conntrack{Status: model.TableStatus(bound(string(c.Status))), Count: c.Count, Peak: c.Peak, Max: c.Max, Buckets: c.Buckets, TimeWaitHold: c.TimeWaitHold}
		if c.Holds != nil {
			s.Conntrack.Holds = model.ClassCounts(*c.Holds)
		}
	}
	s.Entries = entriesFromWire(w.Entries)
	if w.Counters != nil {
		s.CTStats = model.CTStats{Source: bound(w.Counters.Source), Note: bound(w.Counters.Note)}
		for i, ctr := range model.AllCounters {
			if w.Counters.Reported&(1<<i) != 0 {
				s.CTStats.Reported = append(s.CTStats.Reported, ctr)
			}
		}
		if len(w.Counters.PerCPU) > 0 {
			s.CTStats.PerCPU = make([]model.CPUCounters, 0, len(w.Counters.PerCPU))
		}
		for _, r := range w.Counters.PerCPU {
			row := model.CPUCounters{CPU: int(r[0])}
			for i := range model.AllCounters {
				if w.Counters.Reported&(1<<i) != 0 {
					row.Values[i] = r[1+i]
				}
			}
			s.CTStats.PerCPU = append(s.CTStats.PerCPU, row)
		}
	}
	if len(w.CPU) > 0 {
		s.CPU = make([]model.CPUTimes, 0, len(w.CPU))
	}
	for _, r := range w.CPU {
		var t [len(model.CPUModes)]float64
		for i := range t {
			t[i] = float64(r[1+i]) / 100
		}
		s.CPU = append(s.CPU, model.CPUTimesOf(int(r[0]), t))
	}
	if len(w.Disk) > 0 {
		s.Disks = make([]model.DiskIO, 0, len(w.Disk))
	}
	for _, r := range w.Disk {
		s.Disks = append(s.Disks, model.DiskIO{Name: bound(r.name), Reads: r.reads, Writes: r.writes, BusyMillis: r.busy})
	}
	if t := w.TCP; t != nil {
		s.TCP = model.TCP{SynRetrans: t[0], ListenOverflows: t[1], ListenDrops: t[2], ActiveOpens: t[3],
			PassiveOpens: t[4], OutRsts: t[5], TimeWait: t[6], Established: t[7], PortRange: [2]uint64{t[8], t[9]}}
	}
	if k := w.KernelLog; k != nil {
		s.Kernel = model.KernelLog{Readable: k.Readable, Note: bound(k.Note), Suppressed: k.Suppressed}
		for _, l := range k.Lines {
			s.Kernel.Lines = append(s.Kernel.Lines, model.KernelLine{Time: fromMS(l.at), Text: bound(l.text), NetNS: l.netns, NetNSName: bound(l.name)})
		}
	}
	return s, nil
}

// boundNamespaces copies a stream's namespaces bounded: at most
// model.MaxNamespaceRows rows (the rest counted), every string bounded.
func boundNamespaces(ns *model.Namespaces) *model.Namespaces {
	if ns == nil {
		return nil
	}
	out := model.Namespaces{Others: max(0, ns.Others), OthersEntries: ns.OthersEntries, Unread: max(0, ns.Unread), Note: bound(ns.Note), Denied: ns.Denied}
	for i, r := range ns.Rows {
		if i == model.MaxNamespaceRows {
			out.Others += len(ns.Rows) - i
			break
		}
		out.Rows = append(out.Rows, model.NetNS{Inode: r.Inode, Name: bound(r.Name), Kind: bound(r.Kind), PID: max(0, r.PID), Count: r.Count, Peak: r.Peak, Drops: r.Drops, InsertDrops: r.InsertDrops, ChainTooLong: r.ChainTooLong, DropsRead: r.DropsRead})
	}
	return &out
}

// maxDriftWriters bounds the writers a stream's drifted knob names.
const maxDriftWriters = 4

// boundDrift copies a stream's drift check: tablefull's knobs only (a
// key from a stream becomes a Prometheus label), each once, every string
// bounded.
func boundDrift(d *knob.Drifts) *knob.Drifts {
	if d == nil {
		return nil
	}
	out := knob.Drifts{}
	checked := map[string]bool{}
	for _, k := range d.Checked {
		if _, ok := tuning.Spec(k); ok && !checked[k] {
			checked[k] = true
			out.Checked = append(out.Checked, k)
		}
	}
	drifted := map[string]bool{}
	for _, x := range d.Drifted {
		if !checked[x.Knob] || drifted[x.Knob] {
			continue
		}
		drifted[x.Knob] = true
		y := knob.Drift{Knob: x.Knob, Persisted: bound(x.Persisted), Live: bound(x.Live)}
		y.Writers = boundStrings(x.Writers, maxDriftWriters)
		out.Drifted = append(out.Drifted, y)
	}
	return &out
}

// boundCensus copies a census with its strings bounded.
func boundCensus(c *model.Census) *model.Census {
	if c == nil {
		return nil
	}
	out := *c
	out.Error = bound(c.Error)
	out.IdleOpen = max(0, min(c.IdleOpen, c.Total)) // a part of the entries, never more
	out.Assured, out.Unreplied = max(0, min(c.Assured, c.Total)), max(0, min(c.Unreplied, c.Total))
	out.CountBefore, out.CountAfter = min(c.CountBefore, math.MaxUint32), min(c.CountAfter, math.MaxUint32) // the kernel's count is an unsigned int
	out.Dying = min(c.Dying, out.CountBefore)                                                               // a part of the count, never more
	for i := range out.OverHold {                                                                           // a part of the entries, never more
		out.OverHold[i] = min(c.OverHold[i], uint64(max(0, c.Total)))
	}
	boundMap := func(m map[string]int) map[string]int {
		o := make(map[string]int, len(m))
		for k, v := range m {
			o[bound(k)] = v
		}
		return o
	}
	boundList := func(l []tally.Count) []tally.Count {
		o := make([]tally.Count, len(l))
		for i, x := range l {
			o[i] = tally.Count{Key: bound(x.Key), N: x.N}
		}
		return o
	}
	out.ByProto, out.TCPState = boundMap(c.ByProto), boundMap(c.TCPState)
	out.TopPorts, out.TopSources, out.TopDests = boundList(c.TopPorts), boundList(c.TopSources), boundList(c.TopDests)
	if c.TopZones != nil {
		out.TopZones = boundList(c.TopZones)
	}
	if c.TopTimeWaitDests != nil {
		out.TopTimeWaitDests = boundList(c.TopTimeWaitDests)
	}
	out.ZoneLimitsNote = bound(c.ZoneLimitsNote)
	if l := c.ZoneLimits; l != nil {
		out.ZoneLimits = &model.ZoneLimits{Default: l.Default, Zones: l.Zones[:min(len(l.Zones), model.MaxZoneLimits)]}
	}
	out.StaleDNAT = nil
	for _, t := range c.StaleDNAT { // a part of the entries, never more
		entries := max(0, min(t.Entries, c.Total))
		out.StaleDNAT = append(out.StaleDNAT, model.DNATTarget{Target: bound(t.Target), Entries: entries, Unreplied: max(0, min(t.Unreplied, c.Total)),
			Via: bound(t.Via), Service: safe.Text(t.Service, 253), Gone: t.Gone})
	}
	out.DestServices = nil
	for _, d := range out.TopDests { // names of the destinations shown, never more
		if name, ok := c.DestServices[d.Key]; ok {
			if out.DestServices == nil {
				out.DestServices = map[string]string{}
			}
			out.DestServices[d.Key] = safe.Text(name, 253)
		}
	}
	out.Owners = boundOwners(c.Owners)
	return &out
}

// boundListeners copies pressed listeners with their strings bounded.
func boundListeners(l *model.Listeners) *model.Listeners {
	if l == nil {
		return nil
	}
	return &model.Listeners{Somaxconn: l.Somaxconn, Listening: max(0, l.Listening), Error: bound(l.Error), Note: bound(l.Note),
		Pressed: eachOf(l.Pressed, func(x model.Listener) model.Listener {
			return model.Listener{Addr: bound(x.Addr), Queue: x.Queue, Backlog: x.Backlog, Owner: boundOwner(x.Owner)}
		})}
}

// boundOwner copies an owner with its strings bounded, its pid never
// negative and its kind only one tablefull writes.
func boundOwner(o model.Owner) model.Owner {
	kind := o.Kind
	if !model.KnownOwnerKind(kind) {
		kind = ""
	}
	return model.Owner{Comm: bound(o.Comm), PID: max(0, o.PID), Group: bound(o.Group), Kind: kind}
}

// boundOwners copies a census's owners with their strings bounded, their
// counts never negative and their kinds only the ones tablefull writes.
func boundOwners(o *model.Owners) *model.Owners {
	if o == nil {
		return nil
	}
	return &model.Owners{Unowned: o.Unowned, Sockets: max(0, o.Sockets), Note: bound(o.Note), Error: bound(o.Error),
		Top: eachOf(o.Top, func(c model.OwnerCount) model.OwnerCount {
			return model.OwnerCount{Owner: boundOwner(c.Owner), Accepted: c.Accepted, Forwarded: c.Forwarded, Served: c.Served,
				N: max(0, c.N), Peer: bound(c.Peer), PeerN: max(0, c.PeerN)}
		})}
}

// entriesFromWire reads the new-entry counts: a source other than events
// is not counted; top lists are bounded (limits.go) and their counts
// never negative.
func entriesFromWire(w *wireEntries) model.Entries {
	if w == nil {
		return model.Entries{Note: NoteNoClasses}
	}
	e := model.Entries{Note: bound(w.Note)}
	if w.Source != model.EntriesEvents || w.New == nil || w.Ended == nil {
		return e
	}
	e.Source, e.Epoch, e.New, e.Ended, e.Lost = model.EntriesEvents, w.Epoch, *w.New, model.ClassCounts(*w.Ended), w.Lost
	e.EvictedUnknown = w.Evicted == nil // a kernel before 5.11, or an agent older than the counts: not known
	if w.Evicted != nil {               // never more than ended
		for cl, v := range w.Evicted {
			e.Evicted[cl] = min(v, e.Ended[cl])
		}
	}
	tops := func(rows []countRow) []tally.Count {
		var out []tally.Count
		for _, r := range rows {
			out = append(out, tally.Count{Key: bound(r.key), N: max(0, r.n)})
		}
		return out
	}
	e.TopDests, e.TopSources = tops(w.TopDests), tops(w.TopSources)
	return e
}

// NoteNoClasses is the note of a sample from a stream older than the
// classes: nothing says what its entries were.
const NoteNoClasses = "the stream carries no classes (recorded before they were counted)"

// boundNAT copies a ruleset's source NAT: at most model.MaxNATPools
// pools, each with its strings bounded and at most model.MaxNATAddrs
// addresses and model.MaxNATFlags flags.
func boundNAT(n *model.NAT) *model.NAT {
	if n == nil {
		return nil
	}
	out := model.NAT{Note: bound(n.Note)}
	for _, p := range n.Pools[:min(len(n.Pools), model.MaxNATPools)] {
		q := model.NATPool{Rule: bound(p.Rule), Chain: bound(p.Chain), Ports: p.Ports}
		if q.Ports[1] < q.Ports[0] {
			q.Ports = [2]uint16{}
		}
		q.Addrs, q.Flags = boundStrings(p.Addrs, model.MaxNATAddrs), boundStrings(p.Flags, model.MaxNATFlags)
		out.Pools = append(out.Pools, q)
	}
	return &out
}

// boundPorts copies the ports by destination: at most
// model.MaxPortDests, their addresses bounded, no count below zero.
func boundPorts(u *model.PortUse) *model.PortUse {
	if u == nil {
		return nil
	}
	return &model.PortUse{Outbound: max(u.Outbound, 0), Inbound: max(u.Inbound, 0), Approximate: u.Approximate,
		Dests: firstOf(u.Dests, model.MaxPortDests, func(d model.DestPorts) model.DestPorts {
			return model.DestPorts{Src: bound(d.Src), Dst: bound(d.Dst), Ports: max(d.Ports, 0), TimeWait: max(min(d.TimeWait, d.Ports), 0)}
		})}
}

// boundAllowance copies the NICs' allowances: at most
// model.MaxAllowances, their names bounded.
func boundAllowance(as []model.Allowance) []model.Allowance {
	return firstOf(as, model.MaxAllowances, func(a model.Allowance) model.Allowance {
		a.Iface, a.Driver = bound(a.Iface), bound(a.Driver)
		return a
	})
}

// boundCilium copies Cilium's maps: at most model.MaxCiliumMaps, their
// names and note bounded, no map holding more than its size.
func boundCilium(c *model.CiliumMaps) *model.CiliumMaps {
	if c == nil {
		return nil
	}
	return &model.CiliumMaps{Note: bound(c.Note), DropsNote: bound(c.DropsNote),
		Drops: firstOf(c.Drops, model.MaxCiliumDrops, func(d model.CiliumDrop) model.CiliumDrop {
			return model.CiliumDrop{Reason: d.Reason, Name: bound(d.Name), Packets: d.Packets, Rose: min(d.Rose, d.Packets)}
		}),
		Maps: firstOf(c.Maps, model.MaxCiliumMaps, boundCiliumMap)}
}

// boundCiliumMap copies a map with no more entries than its size and its
// endpoints' and destinations' counts a part of them, never more.
func boundCiliumMap(m model.CiliumMap) model.CiliumMap {
	most := int(min(m.Entries, m.Max, math.MaxInt32))
	top := func(cs []tally.Count) []tally.Count {
		return firstOf(cs, model.MaxCiliumTops, func(c tally.Count) tally.Count {
			return tally.Count{Key: bound(c.Key), N: max(0, min(c.N, most))}
		})
	}
	return model.CiliumMap{Name: bound(m.Name), Entries: min(m.Entries, m.Max), Max: m.Max, Endpoints: top(m.Endpoints), Dests: top(m.Dests)}
}
