package diagnose

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/tally"
)

func TestClassOf(t *testing.T) {
	for _, c := range []struct {
		f    model.Flow
		want model.Class
	}{
		{model.Flow{Proto: 6, TCPState: 7, Status: model.StatusSeenReply | model.StatusAssured}, model.ClassTCPDone},
		{model.Flow{Proto: 6, TCPState: 8}, model.ClassTCPReset},
		{model.Flow{Proto: 6, TCPState: 6}, model.ClassTCPLastAck},  // LAST_ACK: its own hold
		{model.Flow{Proto: 6, TCPState: 4}, model.ClassTCPDone},     // FIN_WAIT
		{model.Flow{Proto: 6, TCPState: 2}, model.ClassTCPHalfOpen}, // SYN_RECV
		{model.Flow{Proto: 6, TCPState: 1}, model.ClassTCPUnanswered},
		{model.Flow{Proto: 6, TCPState: -1}, model.ClassTCPUnanswered},
		{model.Flow{Proto: 6, TCPState: 3, Status: model.StatusSeenReply | model.StatusAssured}, model.ClassTCPOpen},
		{model.Flow{Proto: 6, TCPState: 5}, model.ClassTCPOpen},
		{model.Flow{Proto: 17, TCPState: -1, Status: model.StatusSeenReply}, model.ClassUDPSingle},
		{model.Flow{Proto: 17, TCPState: -1, Status: model.StatusSeenReply | model.StatusAssured}, model.ClassUDPStream},
		{model.Flow{Proto: 1, TCPState: -1}, model.ClassICMP},
		{model.Flow{Proto: 58, TCPState: -1}, model.ClassICMP},
		{model.Flow{Proto: 47, TCPState: -1}, model.ClassOther},
	} {
		if got := model.ClassOf(c.f); got != c.want {
			t.Errorf("ClassOf(%+v) = %v, want %v", c.f, got, c.want)
		}
	}
	for _, cl := range model.AllClasses {
		if got, ok := model.ClassNamed(cl.String()); !ok || got != cl {
			t.Errorf("ClassNamed(%q) = %v, %v", cl.String(), got, ok)
		}
	}
}

func TestClassCountsJSON(t *testing.T) {
	var v model.ClassCounts
	v[model.ClassUDPSingle] = 400
	b, err := v.MarshalJSON()
	if err != nil || !strings.Contains(string(b), `"udp":400`) {
		t.Fatalf("marshal %s, %v", b, err)
	}
	var back model.ClassCounts
	if err := back.UnmarshalJSON([]byte(`{"udp":400,"bogus":7}`)); err != nil || back != v {
		t.Errorf("unmarshal %v, %v", back, err)
	}
}

func events(epoch uint64, newTCP, newUDP uint64, ended model.ClassCounts) model.Entries {
	e := model.Entries{Source: model.EntriesEvents, Epoch: epoch, Ended: ended}
	e.New[model.ProtoTCP], e.New[model.ProtoUDP] = newTCP, newUDP
	return e
}

func TestEntryRates(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(s int, e model.Entries, tcp model.TCP) model.Sample {
		return model.Sample{Time: t0.Add(time.Duration(s) * time.Second), Entries: e, TCP: tcp}
	}
	var end0, end1 model.ClassCounts
	end1[model.ClassTCPDone], end1[model.ClassTCPUnanswered] = 75, 25 // 100 TCP ended, 3:1
	end1[model.ClassUDPSingle] = 5
	evicting := events(1, 200, 1400, end1)
	evicting.Evicted[model.ClassTCPDone] = 30
	for _, c := range []struct {
		name      string
		prev, cur model.Sample
		basis     model.Basis
		total     float64
		per       map[model.Class]float64
		evicted   float64 // per second; -1: not known
	}{
		{"events split by the interval's ends", at(0, events(1, 0, 0, end0), model.TCP{}), at(2, events(1, 200, 1400, end1), model.TCP{}),
			model.BasisEvents, 800, map[model.Class]float64{model.ClassTCPDone: 75, model.ClassTCPUnanswered: 25, model.ClassUDPSingle: 700}, 0},
		{"evictions per second", at(0, events(1, 0, 0, end0), model.TCP{}), at(2, evicting, model.TCP{}),
			model.BasisEvents, 800, map[model.Class]float64{model.ClassTCPDone: 75}, 15},
		{"a new subscription: TCP opens", at(0, events(1, 0, 0, end0), model.TCP{ActiveOpens: 10}), at(2, events(2, 200, 0, end1), model.TCP{ActiveOpens: 30}),
			model.BasisTCPOpens, 10, nil, -1},
		{"events switched on: TCP opens until counted end to end", at(0, model.Entries{Note: "off"}, model.TCP{PassiveOpens: 10}), at(2, events(1, 200, 0, end1), model.TCP{PassiveOpens: 50}),
			model.BasisTCPOpens, 20, nil, -1},
		{"no events: TCP opens, a local connection once", at(0, model.Entries{}, model.TCP{ActiveOpens: 100, PassiveOpens: 100}),
			at(2, model.Entries{}, model.TCP{ActiveOpens: 260, PassiveOpens: 260}), model.BasisTCPOpens, 80, map[model.Class]float64{model.ClassTCPDone: 80}, -1},
	} {
		r := model.Delta(c.prev, c.cur).Entries
		if r.Basis != c.basis || math.Abs(r.Total-c.total) > 1e-9 {
			t.Errorf("%s: basis %q total %v, want %q %v", c.name, r.Basis, r.Total, c.basis, c.total)
		}
		if ps, ok := r.Evicted(); ok != (c.evicted >= 0) || ok && ps != c.evicted {
			t.Errorf("%s: evicted %v/s (known %v), want %v", c.name, ps, ok, c.evicted)
		}
		for cl, want := range c.per {
			if math.Abs(r.PerClass[cl]-want) > 1e-9 {
				t.Errorf("%s: %v %v/s, want %v", c.name, cl, r.PerClass[cl], want)
			}
		}
	}
}

// TestEntryRatesFallBackToTheSubscription: an interval with few ends uses
// the subscription's mix, and none at all the protocol's first class.
func TestEntryRatesFallBackToTheSubscription(t *testing.T) {
	t0 := time.Unix(1000, 0)
	var ended model.ClassCounts
	ended[model.ClassTCPUnanswered] = 50
	prev := model.Sample{Time: t0, Entries: events(3, 10, 0, ended)}
	ended[model.ClassTCPUnanswered] = 51 // one end this interval: too few
	cur := model.Sample{Time: t0.Add(time.Second), Entries: events(3, 30, 10, ended)}
	r := model.Delta(prev, cur).Entries
	if r.PerClass[model.ClassTCPUnanswered] != 20 || r.PerClass[model.ClassUDPSingle] != 10 {
		t.Errorf("per class %v, want 20 unanswered (the subscription's mix) and 10 udp (no ends yet)", r.PerClass)
	}
}

func TestFill(t *testing.T) {
	holds := model.ClassCounts{model.ClassTCPDone: 120, model.ClassTCPUnanswered: 120, model.ClassTCPOpen: 432000, model.ClassUDPSingle: 30, model.ClassUDPStream: 120, model.ClassICMP: 30, model.ClassOther: 600}
	ct := func(count, max uint64) model.Conntrack {
		return model.Conntrack{Status: model.TableTracked, Count: count, Peak: count, Max: max, TimeWaitHold: 120, Holds: holds}
	}
	rates := func(per map[model.Class]float64) model.Rates {
		r := model.Rates{Entries: model.EntryRates{Basis: model.BasisEvents}}
		for c, v := range per {
			r.Entries.PerClass[c] = v
			r.Entries.Total += v
		}
		return r
	}
	dns := rates(map[model.Class]float64{model.ClassUDPSingle: 700})
	dns.Entries.TopDests = []tally.Count{{Key: "udp/53", N: 1400}}
	for _, c := range []struct {
		name    string
		s       model.Sample
		r       model.Rates
		census  *model.Census
		top     model.Class
		entries uint64
		ceiling float64
		why     string
		says    string
	}{
		{"DNS fills a table of 400", model.Sample{Conntrack: ct(400, 400)}, dns, nil, model.ClassUDPSingle, 400, 400.0 / 30,
			"400 ÷ 30 s UDP hold", "400 of 400 entries: ~400 udp/53, 700/s × 30 s needs 21,000"},
		{"the write-up: TCP churn", model.Sample{Conntrack: ct(3000, 4096)}, rates(map[model.Class]float64{model.ClassTCPDone: 25}), nil, model.ClassTCPDone, 3000, 4096.0 / 120,
			"4,096 ÷ 120 s TIME_WAIT hold", "3,000 of 4,096 entries: ~3,000 tcp-closed, 25/s × 120 s = 3,000"},
		{"standing connections: the rest of the count, as open sockets show it", model.Sample{Conntrack: ct(500, 500), TCP: model.TCP{Established: 380}}, rates(map[model.Class]float64{model.ClassTCPDone: 1}), nil, model.ClassTCPOpen, 380, 500.0 / 120,
			"500 ÷ 120 s TIME_WAIT hold", "500 of 500 entries: ~380 standing open (tcp-open)"},
		{"a census counts what stands", model.Sample{Conntrack: ct(500, 500)}, rates(map[model.Class]float64{model.ClassTCPUnanswered: 2}),
			&model.Census{Total: 500, ByClass: model.ClassCounts{model.ClassTCPUnanswered: 490, model.ClassTCPDone: 10}}, model.ClassTCPUnanswered, 490, 500.0 / 120,
			"500 ÷ 120 s SYN_SENT hold", "500 of 500 entries: 490 tcp-unanswered, 2/s × 120 s needs 240"},
		{"a census counts them all", model.Sample{Conntrack: ct(500, 500)}, rates(map[model.Class]float64{model.ClassTCPUnanswered: 2}),
			&model.Census{Total: 500, ByClass: model.ClassCounts{model.ClassTCPUnanswered: 500}}, model.ClassTCPUnanswered, 500, 500.0 / 120,
			"500 ÷ 120 s SYN_SENT hold", "500 of 500 entries tcp-unanswered, 2/s × 120 s needs 240"},
	} {
		f := FillOf(c.s, c.r, c.census)
		top, ok := f.Top()
		if !ok || top.Class != c.top || top.Entries != c.entries {
			t.Errorf("%s: top %+v, want %v with %d entries (all %+v)", c.name, top, c.top, c.entries, f.Classes)
		}
		if ceiling, why := CeilingOf(c.s.Conntrack, f); math.Abs(ceiling-c.ceiling) > 1e-9 || why != c.why {
			t.Errorf("%s: ceiling %v (%s), want %v (%s)", c.name, ceiling, why, c.ceiling, c.why)
		}
		if got := f.DescribeText(c.r.Entries.TopDests, c.s.Conntrack); got != c.says {
			t.Errorf("%s: says %q, want %q", c.name, got, c.says)
		}
	}
	// Entries made before the rates were counted are in no class: not
	// standing open without open sockets to show it.
	if top, _ := FillOf(model.Sample{Conntrack: ct(4096, 4096)}, rates(map[model.Class]float64{model.ClassTCPDone: 4}), nil).Top(); top.Class != model.ClassTCPDone || top.Entries != 480 {
		t.Errorf("the console opened during the pin: top %+v, want tcp-closed at 4/s × 120 s", top)
	}
	if f := FillOf(model.Sample{Conntrack: ct(10, 400)}, model.Rates{}, nil); f.Known() {
		t.Errorf("nothing counted, yet classes %+v", f.Classes)
	}
	if ws := FillOf(model.Sample{Conntrack: ct(3000, 4096)}, rates(map[model.Class]float64{model.ClassTCPDone: 25}), nil).WorkingSet(); ws != 3000 {
		t.Errorf("working set %d, want 25/s × 120 s = 3,000", ws)
	}
}

func TestDemand(t *testing.T) {
	d := newDemandTracker()
	t0 := time.Unix(1000, 0)
	frame := func(s int, pinned bool, rate, syn float64) Frame {
		r := model.Rates{SynRetransPS: syn, Entries: model.EntryRates{Basis: model.BasisEvents, Total: rate}}
		return Frame{Sample: model.Sample{Time: t0.Add(time.Duration(s) * time.Second)}, Rates: r, Pinned: pinned}
	}
	if got := observeOwn(d, frame(0, false, 3100, 0)); got.AtLeast != 0 {
		t.Errorf("not pinned: demand %+v", got)
	}
	observeOwn(d, frame(1, false, 2000, 0))
	if got := observeOwn(d, frame(2, true, 4, 0)); got.AtLeast != 3100 || got.Basis != "the rate before the pin" {
		t.Errorf("pinned after a climb: %+v, want ≥ 3,100 from the climb", got)
	}
	// Opened during the pin: nothing before it, the refused SYNs tell.
	d = newDemandTracker()
	got := observeOwn(d, frame(0, true, 4, 700))
	if got.AtLeast != 104 || !strings.Contains(got.String(), "demand ≥ 104 new/s") {
		t.Errorf("opened during the pin: %+v (%s), want 4 + 700 ÷ 7", got, got)
	}
	// A climb older than the lookback does not count.
	d = newDemandTracker()
	observeOwn(d, frame(0, false, 3100, 0))
	if got := observeOwn(d, frame(120, true, 4, 0)); got.AtLeast != 4 {
		t.Errorf("a climb two minutes before: %+v, want the admitted 4", got)
	}
	// A table of DNS lookups pinned and dropping is asked for at least
	// what it admits at its steady state, its ceiling (400 ÷ 30 s), though
	// the events counted only 3/s getting in: never "demand ≥ 3" beside a
	// ceiling of 13.
	d = newDemandTracker()
	dns := frame(0, true, 3, 0)
	dns.Sample.Conntrack = model.Conntrack{Status: model.TableTracked, Count: 400, Peak: 400, Max: 400}
	dns.Rates.CTTotal.Set(model.Drop, 190)
	dns.Fill = Fill{Counted: true, Classes: []ClassFill{{Class: model.ClassUDPSingle, Entries: 400, Hold: 30, RatePS: 3}}}
	if got := observeOwn(d, dns); got.AtLeast < 400.0/30 || !strings.Contains(got.Basis, "ceiling") {
		t.Errorf("a pinned table that drops: demand %+v, want ≥ its ceiling 13.3", got)
	}
}

// observeOwn is demandTracker.observe of a frame of a whole interval: its
// own rates are its sustained ones.
func observeOwn(d *demandTracker, f Frame) Demand { return d.observe(f, f.Rates) }
