package model

import (
	"net/netip"
	"strconv"
	"time"

	"github.com/tablefull/tablefull/model/tally"
	"github.com/tablefull/tablefull/model/units"
)

// TCPStates names the kernel's tcp_conntrack values, by number.
var TCPStates = []string{"NONE", "SYN_SENT", "SYN_RECV", "ESTABLISHED", "FIN_WAIT", "CLOSE_WAIT",
	"LAST_ACK", "TIME_WAIT", "CLOSE", "SYN_SENT2"}

// Census is what fills the table: entries per protocol and TCP state, and
// the heaviest destination ports and addresses. Its memory does not grow
// with the table: ports are counted in fixed arrays and addresses with a
// bounded heavy-hitter sketch.
type Census struct {
	Total    int            `json:"total"`
	ByProto  map[string]int `json:"by_proto"`
	TCPState map[string]int `json:"tcp_state"`
	// ByClass counts the entries of each class (ClassOf).
	ByClass ClassCounts `json:"by_class"`
	// TopPorts are the most used destination ports ("tcp/3900").
	TopPorts []tally.Count `json:"top_dst_ports"`
	// TopSources and TopDests are the addresses opening the most
	// connections and receiving them. Counts are exact when fewer than
	// SketchSize addresses exist, otherwise lower bounds (Misra-Gries).
	TopSources []tally.Count `json:"top_sources"`
	TopDests   []tally.Count `json:"top_destinations"`
	// TopTimeWaitDests are the destinations of the most TCP entries in
	// TIME_WAIT (each still holds its tuple: behind a source NAT, a port
	// of the pool), counted as TopDests are.
	TopTimeWaitDests []tally.Count `json:"top_time_wait_destinations"`
	// TopZones are the conntrack zones holding the most entries ("zone
	// 5", zone 0 as "zone 0"), when any entry carries a zone other than
	// 0 (OVS, some CNIs); nil when none does.
	TopZones []tally.Count `json:"top_zones,omitempty"`
	// ZoneLimits are OVS's limits per zone, read when the census found
	// zones and OVS sets limits here; ZoneLimitsNote says why not.
	ZoneLimits     *ZoneLimits `json:"zone_limits,omitempty"`
	ZoneLimitsNote string      `json:"zone_limits_note,omitempty"`
	// StaleDNAT are the DNAT targets to doubt: before the ruleset is
	// read, those none of whose UDP entries saw a reply (StaleDNATMin or
	// more); once it is (DNATChecked, JudgeDNAT), every target it no
	// longer names, whatever its count, first.
	StaleDNAT   []DNATTarget `json:"stale_dnat,omitempty"`
	DNATChecked bool         `json:"dnat_checked,omitempty"`
	// DestServices names the TopDests addresses kube-proxy's ruleset
	// names a Service for ("10.96.0.10" → "kube-system/kube-dns"), read
	// with the ruleset when the dump found DNAT'd entries.
	DestServices map[string]string `json:"dest_services,omitempty"`
	// dnatAll is every DNAT target the dump counted, for JudgeDNAT;
	// dnatAny says an entry of any protocol was DNAT'd.
	dnatAll []DNATTarget
	dnatAny bool
	// Approximate is set when the kernel flagged the dump as interrupted
	// (the table changed under it) or the address sketch overflowed.
	Approximate bool `json:"approximate"`
	// IdleOpen counts the ESTABLISHED entries idle over IdleOpenAfter
	// (their remaining timeout says how long since their last packet),
	// when IdleCounted: the dump knew the namespace's established timeout.
	IdleOpen    int  `json:"idle_open,omitempty"`
	IdleCounted bool `json:"idle_counted,omitempty"`
	// Assured counts the entries the kernel marked assured (a reply seen
	// and, for TCP, the handshake done): early drop never evicts them.
	// Unreplied counts those that never saw a reply. Both are absent in
	// recordings from before they were counted (AssuredCounted false).
	Assured        int  `json:"assured,omitempty"`
	Unreplied      int  `json:"unreplied,omitempty"`
	AssuredCounted bool `json:"assured_counted,omitempty"`
	// OverHold counts, by class, the entries whose remaining timeout is
	// longer than their class's hold now (given before it was lowered),
	// and OverLeft the longest such remaining timeout in seconds, when
	// HoldsCounted: the dump knew the holds.
	OverHold     ClassCounts `json:"over_hold,omitzero"`
	OverLeft     ClassCounts `json:"over_left,omitzero"`
	HoldsCounted bool        `json:"holds_counted,omitempty"`
	// Owners is who holds the entries (nil: not attributed, as in a
	// recording from before it was).
	Owners *Owners `json:"owners,omitempty"`
	// At is when the dump finished; Took how long it ran.
	At   time.Time     `json:"at"`
	Took time.Duration `json:"took_ns"`
	// CountBefore and CountAfter are nf_conntrack_count read as the dump
	// began and once it ended, when CountRead: entries counted but not
	// listed have expired and wait for the GC (a dump reaps them).
	CountBefore uint64 `json:"count_before,omitempty"`
	CountAfter  uint64 `json:"count_after,omitempty"`
	CountRead   bool   `json:"count_read,omitempty"`
	// Dying is how many of the counted entries were on the dying list,
	// when DyingRead (read only when the count is well above what the
	// dump listed): ended but still counted, waiting for a listener that
	// asked for reliable event delivery to take their DESTROY events.
	Dying     uint64 `json:"dying,omitempty"`
	DyingRead bool   `json:"dying_read,omitempty"`
	// Error says why there is no census (e.g. it needs root).
	Error string `json:"error,omitempty"`
}

// IdleOpenAfter is how long without a packet makes an open connection's
// entry idle, for the census ("idle over an hour").
const IdleOpenAfter = time.Hour

// IdleBelow is the remaining timeout under which an ESTABLISHED entry
// held openHold seconds has been idle over IdleOpenAfter; 0 (not
// counted) when the hold is unknown or not longer than that.
func IdleBelow(openHold uint64) uint32 {
	idle := uint64(IdleOpenAfter / time.Second)
	if openHold <= idle || openHold-idle > 1<<31 {
		return 0
	}
	return uint32(openHold - idle)
}

// IdleText says how many open connections have idled over an hour, or
// that it was not counted (never "0" for not known).
func (c Census) IdleText() string {
	if !c.IdleCounted {
		return "idle not counted (the established timeout was not read)"
	}
	return units.Int(uint64(c.IdleOpen)) + " ESTABLISHED idle over an hour"
}

// CensusEvery is how often a live census walks the table: never more
// often than every 5 s, and at least 20 walks' time apart, so a table that
// takes 1.8 s to walk (262,144 entries) is walked every 36 s. Walking the
// table makes the kernel visit and copy every entry: it is not free.
func CensusEvery(last time.Duration) time.Duration { return max(5*time.Second, 20*last) }

// CensusTop is the length of each of a census's top lists as tablefull
// takes it.
const CensusTop = 10

// CensusCounter accumulates flows one by one.
type CensusCounter struct {
	total    int
	proto    [256]int
	state    [numTCPStates]int
	class    ClassCounts
	tcpPorts [65536]uint32
	udpPorts [65536]uint32
	src, dst tally.Sketch[netip.Addr]
	// twDst counts the TIME_WAIT entries' destinations.
	twDst   tally.Sketch[netip.Addr]
	partial bool
	// IdleBelow, when set (see IdleBelow), counts the ESTABLISHED entries
	// whose remaining timeout is under it as idle.
	IdleBelow uint32
	idle      int
	assured   int
	unreplied int
	// Holds, when set, are the classes' holds now in seconds (0:
	// unknown): entries with longer timeouts left are counted (OverHold).
	// AssuredEarly: the kernel assures UDP early (UDPAssuredEarly).
	Holds              ClassCounts
	AssuredEarly       bool
	overHold, overLeft ClassCounts
	// zones counts the entries of each zone but 0 (nil until one is seen).
	zones map[uint16]int
	// dnat counts UDP entries by the target a DNAT sent them to.
	dnat    map[netip.AddrPort]dnatCount
	dnatAny bool
}

// NewCensusCounter is a counter for a table whose classes are held holds
// (seconds; 0 unknown), counting an open entry as idle by the open
// class's hold. Take a counter from here, not from a literal: a literal
// of its size (512 kB of port counts) is built on the stack and copied.
func NewCensusCounter(holds ClassCounts) *CensusCounter {
	c := new(CensusCounter)
	c.IdleBelow, c.Holds = IdleBelow(holds[ClassTCPOpen]), holds
	return c
}

// numTCPStates is len(TCPStates).
const numTCPStates = 10

// Flow is the part of a conntrack entry the census counts.
type Flow struct {
	Proto            uint8
	Src, Dst         netip.Addr
	SrcPort, DstPort uint16
	// TCPState is a tcp_conntrack value, or -1 when not TCP or unknown.
	TCPState int
	// Status is the entry's status bits (IPS_*), see StatusAssured.
	Status uint32
	// Timeout is the seconds left before the kernel drops the entry (0:
	// not told).
	Timeout uint32
	// Zone is the entry's conntrack zone (0: the default); OrigZone and
	// ReplyZone a zone of one direction only (CTA_TUPLE_ZONE; 0: none).
	Zone                uint16
	OrigZone, ReplyZone uint16
	// ReplySrc and ReplySrcPort are where replies come from: not the
	// original destination when a DNAT changed it. ReplyDst and
	// ReplyDstPort are where they go: not the original source when a SNAT
	// changed it.
	ReplySrc, ReplyDst         netip.Addr
	ReplySrcPort, ReplyDstPort uint16
	// Mark is the entry's connmark.
	Mark uint32
	// Labels are the entry's conntrack labels, bit n of the 128 in
	// Labels[n/64] (CTA_LABELS): read to filter by, not carried.
	Labels [2]uint64 `json:"-"`
	// ID is the kernel's id of the entry as dumped (CTA_ID, 0: not read):
	// a delete that carries it removes that entry, never another that
	// took its tuple since.
	ID uint32 `json:"-"`
	// Packets and Bytes are each direction's (original, reply), when
	// Accounted: nf_conntrack_acct was on when the entry was made.
	Packets, Bytes [2]uint64
	Accounted      bool
}

// Add counts one flow.
func (c *CensusCounter) Add(f Flow) {
	c.total++
	c.proto[f.Proto]++
	cl := ClassHeld(f, c.Holds, c.AssuredEarly)
	c.class[cl]++
	c.countOverHold(cl, f.Timeout)
	if f.Status&StatusAssured != 0 {
		c.assured++
	}
	if f.Status&StatusSeenReply == 0 {
		c.unreplied++
	}
	if f.TCPState >= 0 && f.TCPState < len(c.state) {
		c.state[f.TCPState]++
	}
	if f.TCPState == TCPEstablished && f.Timeout > 0 && f.Timeout < c.IdleBelow {
		c.idle++
	}
	switch f.Proto {
	case 6:
		c.tcpPorts[f.DstPort]++
	case 17:
		c.udpPorts[f.DstPort]++
	}
	c.countDNAT(f)
	if f.Zone != 0 {
		if c.zones == nil {
			c.zones = map[uint16]int{}
		}
		c.zones[f.Zone]++
	}
	if f.Src.IsValid() {
		c.src.Add(f.Src)
	}
	if f.Dst.IsValid() {
		c.dst.Add(f.Dst)
		if f.TCPState == tcpTimeWait {
			c.twDst.Add(f.Dst)
		}
	}
}

// MarkApproximate records that the dump was interrupted.
func (c *CensusCounter) MarkApproximate() { c.partial = true }

// Census returns the counts, with the top n of each list.
func (c *CensusCounter) Census(n int) Census {
	out := Census{Total: c.total, ByProto: map[string]int{}, TCPState: map[string]int{},
		Approximate: c.partial || c.src.Overflowed() || c.dst.Overflowed(), ByClass: c.class,
		IdleOpen: c.idle, IdleCounted: c.IdleBelow > 0, Assured: c.assured, Unreplied: c.unreplied, AssuredCounted: true,
		OverHold: c.overHold, OverLeft: c.overLeft, HoldsCounted: c.Holds != ClassCounts{}}
	for p, v := range &c.proto {
		if v == 0 {
			continue
		}
		name, ok := protoNames[p]
		if !ok {
			name = "proto-" + itoa(p)
		}
		out.ByProto[name] = v
	}
	for s, v := range c.state {
		if v > 0 {
			out.TCPState[TCPStates[s]] = v
		}
	}
	var ports []tally.Count
	// Ranging over the arrays' addresses: ranging over an array value
	// copies it (256 kB each) onto the stack first.
	for p, v := range &c.tcpPorts {
		if v > 0 {
			ports = append(ports, tally.Count{Key: DestKey(6, uint16(p)), N: int(v)})
		}
	}
	for p, v := range &c.udpPorts {
		if v > 0 {
			ports = append(ports, tally.Count{Key: DestKey(17, uint16(p)), N: int(v)})
		}
	}
	out.TopPorts = tally.TopCounts(ports, n)
	out.TopZones = c.topZones(n)
	out.dnatAll, out.dnatAny = c.dnatTargets(), c.dnatAny
	out.StaleDNAT = unanswered(out.dnatAll)
	out.TopSources = c.src.Top(n, netip.Addr.String)
	out.TopDests = c.dst.Top(n, netip.Addr.String)
	out.TopTimeWaitDests = c.twDst.Top(n, netip.Addr.String)
	out.Approximate = out.Approximate || c.twDst.Overflowed()
	return out
}

func itoa(i int) string { return strconv.Itoa(i) }

// SortedCounts lists a map of counts most first (ties by key): a census's
// protocols or TCP states as every view shows them.
func SortedCounts(m map[string]int) []tally.Count {
	out := make([]tally.Count, 0, len(m))
	for k, n := range m {
		out = append(out, tally.Count{Key: k, N: n})
	}
	out, _ = tally.TopN(out, len(out), tally.CountWeight, tally.ByKey)
	return out
}

// DestKey names a destination as the top lists do: "udp/53", "tcp/6379",
// "icmp" for protocols without ports.
func DestKey(proto uint8, port uint16) string {
	name, ok := protoNames[int(proto)]
	if !ok {
		name = "proto-" + itoa(int(proto))
	}
	switch proto {
	case 6, 17, 132, 136, 33:
		return name + "/" + itoa(int(port))
	}
	return name
}
