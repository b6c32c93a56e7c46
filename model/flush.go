package model

import (
	"net/netip"
	"strings"
	"time"

	"github.com/tablefull/tablefull/model/safe"
	"github.com/tablefull/tablefull/model/tally"
	"github.com/tablefull/tablefull/model/verdict"
)

// Flushes are the bursts of entries user space deleted from the table:
// a kube-proxy restart or a Service's endpoint change (kube-proxy deletes
// the UDP entries of a gone endpoint itself), conntrack -F, an agent's
// cleanup. The kernel's DESTROY event of an entry user space deleted
// carries the deleter's netlink port; one the kernel ended carries none.
// nil in a sample: not read (a recording from before it was, a one-shot
// sample); Watching false: not watched, and Note says why.
type Flushes struct {
	Watching bool   `json:"watching"`
	Note     string `json:"note,omitempty"`
	// Deleted is every entry user space deleted since the watch began.
	Deleted uint64 `json:"deleted,omitempty"`
	// Recent are the last bursts, oldest first (at most MaxFlushes).
	Recent []Flush `json:"recent,omitempty"`
}

// Flush is one burst: FlushMin or more entries deleted by user space in
// each second from From to To.
type Flush struct {
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
	// UnderWay is a burst still going on at To's second: said as it
	// happens, not only once a second falls short.
	UnderWay bool   `json:"under_way,omitempty"`
	Entries  uint64 `json:"entries"`
	// UDP is how many of them were UDP: the entries whose loss a
	// client's long-lived socket does not notice.
	UDP uint64 `json:"udp,omitempty"`
	// Dests are the destinations the deleted entries' clients asked for,
	// most first (at most MaxFlushDests), each with its Service where
	// kube-proxy's rules name one.
	Dests []FlushDest `json:"dests,omitempty"`
}

// FlushDest is a destination of a burst's deleted entries.
type FlushDest struct {
	// Dest is "udp 10.96.0.10:53": the protocol and the address:port
	// the entries' clients sent to (the original direction's).
	Dest    string `json:"dest"`
	Entries uint64 `json:"entries"`
	Service string `json:"service,omitempty"`
}

// Bounds and thresholds of the flush watch.
const (
	// FlushMin is how many user-space deletions in one second make it a
	// burst's second: kube-proxy's own cleanup of one endpoint deletes
	// a handful, a restart every UDP Service's.
	FlushMin = 100
	// FlushShown is how long after a burst ends its verdict holds, so a
	// one-second event is not gone before anyone looks.
	FlushShown    = time.Minute
	MaxFlushes    = 4
	MaxFlushDests = 3
)

// FlushDestKey is a FlushDest's Dest for a protocol number and the
// original direction's destination.
func FlushDestKey(proto uint8, dst netip.AddrPort) string {
	return strings.ToLower(ProtoOf(proto).String()) + " " + dst.String()
}

// Any reports whether user space was seen deleting an entry: the table
// was used, whatever its count now.
func (f *Flushes) Any() bool { return f != nil && f.Deleted > 0 }

// Latest is the newest burst that ended within FlushShown of now, or nil.
func (f *Flushes) Latest(now time.Time) *Flush {
	if f == nil || len(f.Recent) == 0 {
		return nil
	}
	last := &f.Recent[len(f.Recent)-1]
	if now.Before(last.To) || now.Sub(last.To) > FlushShown {
		return nil
	}
	return last
}

// Clauses say a burst: "user space deleted 1,000 entries (1,000 UDP) in
// 1 s at 14:02:03", then a clause each for where they went:
// "kube-system/kube-dns:dns (udp 10.96.0.10:53) 1,000".
func (f Flush) Clauses() []verdict.Clause {
	scope := "the burst from " + f.From.Format("15:04:05")
	key := "flush"
	if f.UnderWay {
		key = "flush.under-way"
	}
	cs := []verdict.Clause{say(verdict.Lead, key,
		verdict.N("deleted", f.Entries, verdict.Entries).From("ctnetlink DESTROY events of entries deleted by user space", scope),
		verdict.N("udp", f.UDP, verdict.Entries).From("ctnetlink DESTROY events of entries deleted by user space", scope),
		verdict.D("took", f.To.Sub(f.From).Truncate(time.Second)+time.Second),
		verdict.W("at", f.From.Format("15:04:05")))}
	for i, d := range f.Dests {
		facts := []verdict.Fact{verdict.W("dest", safe.Text(d.Dest, 60)), verdict.N("n", d.Entries, verdict.Entries).From("ctnetlink DESTROY events", scope)}
		key := "flush.to"
		if d.Service != "" {
			key = "flush.to-service"
			facts = append(facts, verdict.W("service", safe.Text(d.Service, 80)))
		}
		sep := ", "
		if i == 0 {
			sep = ": "
		}
		cs = append(cs, say(verdict.Who, key, facts...).After(sep))
	}
	return cs
}

// FlushCounter finds bursts in user-space deletions as they arrive, fed
// one deletion at a time (Deleted) and told the time (Tick). Memory is
// bounded: one second's tally and one burst's, each of at most
// flushKeys destinations.
type FlushCounter struct {
	sec        time.Time // the second being counted
	inSec, udp uint64
	secDests   map[string]uint64
	open       bool // a burst is under way
	burst      Flush
	burstDests map[string]uint64
	ended      []Flush
	total      uint64
}

// flushKeys bounds the destinations a second or a burst tallies: a
// burst's top few are said, the rest only counted in its total.
const flushKeys = 64

// Deleted counts one entry user space deleted at at: its protocol
// number and the original direction's destination.
func (c *FlushCounter) Deleted(at time.Time, proto uint8, dst netip.AddrPort) {
	c.Tick(at)
	c.total++
	c.inSec++
	if ProtoOf(proto) == ProtoUDP {
		c.udp++
	}
	addCapped(&c.secDests, FlushDestKey(proto, dst), 1)
}

// Tick closes the seconds before now's, ending the burst under way when
// a second of them fell short of FlushMin.
func (c *FlushCounter) Tick(now time.Time) {
	s := now.Truncate(time.Second)
	if c.sec.IsZero() {
		c.sec = s
	}
	if !s.After(c.sec) {
		return
	}
	if c.inSec >= FlushMin {
		if !c.open {
			c.open, c.burst = true, Flush{From: c.sec}
		}
		c.burst.To = c.sec
		c.burst.Entries += c.inSec
		c.burst.UDP += c.udp
		for k, n := range c.secDests {
			addCapped(&c.burstDests, k, n)
		}
	}
	if c.open && (c.inSec < FlushMin || s.Sub(c.sec) > time.Second) {
		c.endBurst()
	}
	c.sec, c.inSec, c.udp = s, 0, 0
	clear(c.secDests)
}

// withDests is the burst under way with its top destinations.
func (c *FlushCounter) withDests() Flush {
	var ds []tally.Count
	for k, n := range c.burstDests {
		ds = append(ds, tally.Count{Key: k, N: int(min(n, 1<<31-1))})
	}
	b := c.burst
	b.Dests = nil
	for _, d := range tally.TopCounts(ds, MaxFlushDests) {
		b.Dests = append(b.Dests, FlushDest{Dest: d.Key, Entries: uint64(d.N)})
	}
	return b
}

// endBurst moves the burst under way to the ended ones, its top
// destinations kept.
func (c *FlushCounter) endBurst() {
	c.ended = append(c.ended, c.withDests())
	if len(c.ended) > MaxFlushes {
		c.ended = c.ended[len(c.ended)-MaxFlushes:]
	}
	c.open, c.burst = false, Flush{}
	clear(c.burstDests)
}

// Deletions is every deletion counted.
func (c *FlushCounter) Deletions() uint64 { return c.total }

// Recent is the bursts that ended and the one under way (UnderWay, its
// seconds so far), the last MaxFlushes of them, oldest first (a copy).
func (c *FlushCounter) Recent() []Flush {
	out := make([]Flush, 0, len(c.ended)+1)
	for _, f := range c.ended {
		f.Dests = append([]FlushDest(nil), f.Dests...)
		out = append(out, f)
	}
	if c.open {
		b := c.withDests()
		b.UnderWay = true
		out = append(out, b)
	}
	return out[max(0, len(out)-MaxFlushes):]
}

// addCapped adds n to key in *m, made when nil; a key beyond flushKeys
// others is not kept.
func addCapped(m *map[string]uint64, key string, n uint64) {
	if *m == nil {
		*m = make(map[string]uint64)
	}
	if _, ok := (*m)[key]; ok || len(*m) < flushKeys {
		(*m)[key] += n
	}
}
