package model

import (
	"strconv"
	"strings"
	"time"

	"github.com/tablefull/tablefull/model/tally"
	"github.com/tablefull/tablefull/model/units"
	"github.com/tablefull/tablefull/model/verdict"
)

// LifeBuckets is how many lifetime buckets a ConnFlow has: bucket 0 is
// under 1 ms, bucket i (i ≥ 1) from 2^(i-1) ms to 2^i ms, the last one
// everything longer.
const LifeBuckets = 16

// ConnFlow is one owner's new TCP connections to one destination, seen
// by the kernel probe as they were made (connect(2), in the process's
// own context); how long those that closed lived once established (the
// handshake's wait, a dropped SYN's retries and TIME_WAIT are not in
// it); and how many closed unanswered.
type ConnFlow struct {
	Owner
	// Proto is the IP protocol (6 TCP, 17 UDP, …).
	Proto  uint8  `json:"proto,omitempty"`
	Dest   string `json:"dest"`
	Opened uint64 `json:"opened"`
	Closed uint64 `json:"closed,omitempty"`
	Failed uint64 `json:"failed,omitempty"`
	// LifeSum is the closed connections' lifetimes together.
	LifeSum time.Duration       `json:"life_sum_ns,omitempty"`
	Life    [LifeBuckets]uint32 `json:"life,omitempty"`
	// Secs is how long it was counted, when summed over a window from its
	// first interval in it (0: one interval).
	Secs float64 `json:"secs,omitempty"`
}

// PerSec is the flow's new connections a second, over its own Secs or
// else secs.
func (c ConnFlow) PerSec(secs float64) float64 {
	if c.Secs > 0 {
		secs = c.Secs
	}
	if secs <= 0 {
		return 0
	}
	return float64(c.Opened) / secs
}

// MedianLife is the closed connections' median lifetime, from the
// buckets (the upper end of the median's bucket); false with none closed.
func (c ConnFlow) MedianLife() (time.Duration, bool) {
	var n uint64
	for _, v := range c.Life {
		n += uint64(v)
	}
	if n == 0 {
		return 0, false
	}
	var seen uint64
	for i, v := range c.Life {
		if seen += uint64(v); seen*2 >= n {
			return time.Duration(1<<i) * time.Millisecond, true
		}
	}
	return time.Duration(1<<(LifeBuckets-1)) * time.Millisecond, true
}

// DropFlow is packets the table refused (dropped by netfilter with no
// conntrack entry attached: a firewall's own DROP, after conntrack, is
// not one), by owner where the packet had a local socket (a connect's
// SYN: its cgroup), and tuple.
type DropFlow struct {
	Owner
	Src   string `json:"src"`
	Dest  string `json:"dest"`
	Proto uint8  `json:"proto"`
	N     uint64 `json:"n"`
}

// Who is what the kernel probes counted in one interval: the busiest
// owners' new connections and the table's drops, the rest summed.
type Who struct {
	Conns []ConnFlow `json:"conns"`
	Drops []DropFlow `json:"drops"`
	// OtherOpened and OtherDrops are the flows beyond the shown ones.
	OtherOpened uint64 `json:"other_opened,omitempty"`
	OtherDrops  uint64 `json:"other_drops,omitempty"`
	// Lost counts what the probes could not count (their maps were
	// full): the counts are then lower bounds.
	Lost uint64 `json:"lost,omitempty"`
	// DropsSplit says the drops were told apart where they were decided:
	// Drops are the packets conntrack itself refused (the table full, a
	// tracker's drop), and DroppedByRules the packets without an entry a
	// rule dropped (ct state invalid drop, or a drop before conntrack).
	// Without the split, Drops holds both.
	DropsSplit     bool   `json:"drops_split,omitempty"`
	DroppedByRules uint64 `json:"dropped_by_rules,omitempty"`
	// Note says why nothing was counted (no BTF, eBPF refused, the table
	// far from its cap), when nothing was.
	Note string `json:"note,omitempty"`
	// Limit says what the probes do not count on this kernel, when they
	// count the rest.
	Limit string `json:"limit,omitempty"`
	// TableDrops is the table's own drop counter over the same time, when
	// TableDropsRead (the analyzer's window sums it): the probes' drops
	// are matched to it, so a rule that drops before conntrack (a raw
	// table's) is not taken for the table.
	TableDrops     uint64 `json:"-"`
	TableDropsRead bool   `json:"-"`
}

// WhoShown bounds the flows of each list a sample keeps.
const WhoShown = 10

// On reports whether the probes counted this interval.
func (w *Who) On() bool { return w != nil && w.Note == "" }

// TopConns orders flows by connections opened (ties by owner, then
// destination), keeps n and returns the opened count of the rest.
func TopConns(cs []ConnFlow, n int) ([]ConnFlow, uint64) {
	return tally.TopN(cs, n, func(c ConnFlow) uint64 { return c.Opened }, func(a, b ConnFlow) bool {
		if a, b := a.Owner.String(), b.Owner.String(); a != b {
			return a < b
		}
		if a.Dest != b.Dest {
			return a.Dest < b.Dest
		}
		return a.Proto < b.Proto
	})
}

// TopDrops orders drop flows most first (ties by destination, source),
// keeps n and returns the count of the rest.
func TopDrops(ds []DropFlow, n int) ([]DropFlow, uint64) {
	return tally.TopN(ds, n, func(d DropFlow) uint64 { return d.N }, func(a, b DropFlow) bool {
		if a.Dest != b.Dest {
			return a.Dest < b.Dest
		}
		return a.Src < b.Src
	})
}

// OnePerRequest is the finding for an owner that opens connection after
// short-lived connection to one destination: the write-up's root cause.
const OnePerRequest = "one connection per request — reuse connections (keep-alive) or make fewer, larger requests"

// Churn thresholds: at least ChurnPS new connections a second to one
// destination, most of them closed within ShortLife.
const (
	ChurnPS   = 10.0
	ShortLife = time.Second
)

// Churning reports whether the flow is one connection per request over
// secs seconds: many new connections a second, and those that closed
// lived a short while (their median under ShortLife).
func (c ConnFlow) Churning(secs float64) bool {
	if c.PerSec(secs) < ChurnPS || c.Closed == 0 {
		return false
	}
	m, ok := c.MedianLife()
	return ok && m <= ShortLife
}

// DominantText is DominantClauses' words, "" when it has none.
func (w *Who) DominantText(secs float64) string {
	return verdict.Verdict{Clauses: w.DominantClauses(secs)}.Text()
}

// DominantClauses name the owner opening most of the interval's new
// connections when it opens at least DominantShare of them: "91 % of new
// connections from duckdb (pid 4242, user.slice) to 10.5.5.14:3900
// (120/s, median life under 8 ms): one connection per request — …"; and
// whose packets the table dropped. None when no owner dominates or w is
// nil or off. The names are foreign: views sanitise the evidence.
func (w *Who) DominantClauses(secs float64) []verdict.Clause {
	if !w.On() || len(w.Conns) == 0 || secs <= 0 {
		return nil
	}
	total := w.Opened()
	top := w.Conns[0]
	if total == 0 || float64(top.Opened) < DominantShare*float64(total) {
		return nil
	}
	window := time.Duration(secs * float64(time.Second))
	scope := "the probes' last " + units.Dur(window)
	facts := []verdict.Fact{
		verdict.N("share", float64(top.Opened)*100/float64(total), verdict.Percent).From("the probes' new connections", scope),
		verdict.W("owner", top.Owner.String()), verdict.W("dest", top.DestText()),
		verdict.N("rate", top.PerSec(secs), verdict.PerSecond).From("the probes' new connections", scope),
	}
	key := "who.opens"
	if m, ok := top.MedianLife(); ok {
		key = "who.opens.life"
		facts = append(facts, verdict.D("life", m).From("the probes' closed connections", scope))
	}
	cs := []verdict.Clause{say(verdict.Who, key, facts...)}
	if top.Churning(secs) {
		cs = append(cs, say(verdict.Who, "who.churn").After(": "))
	}
	return append(cs, w.dropsClauses(top, scope, window)...)
}

// dropsClauses say how many of the table's drops in the probes' window
// were top's packets. The probes' counts are the window's, not the pin's:
// said with their scope, so they are never a second total beside the
// episode's.
func (w *Who) dropsClauses(top ConnFlow, scope string, window time.Duration) []verdict.Clause {
	var drops, theirs uint64
	for _, d := range w.Drops {
		drops += d.N
		if d.Group == top.Group && d.Kind == top.Kind {
			theirs += d.N
		}
	}
	drops += w.OtherDrops
	last := verdict.D("window", window).From("the probes' trailing window", scope)
	switch {
	case theirs == 0:
	case w.TableDropsRead && w.TableDrops > 0: // the table's own count is the whole
		cs := []verdict.Clause{say(verdict.Who, "who.drops",
			verdict.N("theirs", min(theirs, w.TableDrops), verdict.Packets).From("the probes' drops", scope),
			verdict.N("table drops", w.TableDrops, verdict.Packets).From("conntrack -S drop, summed over CPUs", scope), last)}
		if w.DropsSplit && w.DroppedByRules > 0 { // told apart where they were decided: no guess
			cs = append(cs, say(verdict.Who, "who.drops.by-rules",
				verdict.N("by rules", w.DroppedByRules, verdict.Packets).From("the probes' drops by rules", scope)).After(" "))
		} else if !w.DropsSplit && drops > w.TableDrops*11/10 {
			cs = append(cs, say(verdict.Who, "who.drops.before",
				verdict.N("before conntrack", drops-w.TableDrops, verdict.Packets).From("the probes' drops", scope)).After(" "))
		}
		return cs
	case !w.TableDropsRead && drops > 0:
		return []verdict.Clause{say(verdict.Who, "who.drops.share",
			verdict.N("their share", float64(theirs)*100/float64(drops), verdict.Percent).From("the probes' drops", scope), last)}
	}
	return nil
}

// LifeText is a connection's lifetime: "8 ms", "2 s".
func LifeText(d time.Duration) string {
	if d < time.Second {
		return strconv.FormatInt(d.Milliseconds(), 10) + " ms"
	}
	return units.Dur(d)
}

// Opened is every new connection the probes counted, shown or not (0 for
// nil).
func (w *Who) Opened() uint64 {
	if w == nil {
		return 0
	}
	n := w.OtherOpened
	for _, c := range w.Conns {
		n += c.Opened
	}
	return n
}

// DestText is the destination with its protocol when it is not TCP:
// "10.0.0.53:53 udp".
func (c ConnFlow) DestText() string {
	if c.Proto == 0 || c.Proto == 6 {
		return c.Dest
	}
	return c.Dest + " " + strings.SplitN(DestKey(c.Proto, 0), "/", 2)[0]
}
