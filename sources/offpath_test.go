package sources

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
)

// TestStalledAttributionNeverHoldsTheCount: while the probes' owner
// lookup is stuck (a read that does not return), the samples keep their
// counts and their pace: the one that started it waits its budget, the
// next ones not at all, each says the lookup is over budget and shows
// the last answer; once it returns the next sample is fresh again.
func TestStalledAttributionNeverHoldsTheCount(t *testing.T) {
	c := fixtureCollector(t, "table-pinned", fixedNetlink{})
	probes := &stuckProbes{note: "probe answer one"}
	c.who = probes
	first := c.Sample(fixtureTime, time.Second)
	if first.Who == nil || first.Who.Note != "probe answer one" {
		t.Fatalf("first sample's probes: %+v", first.Who)
	}
	probes.mu.Lock() // the probes' read is stuck from here
	stuck := true
	defer func() {
		if stuck {
			probes.mu.Unlock()
		}
	}()
	probes.note = "probe answer two"
	for i := range 3 {
		began := time.Now()
		s := c.Sample(fixtureTime.Add(time.Duration(i+1)*time.Second), time.Second)
		took := time.Since(began)
		limit := AttributionBudget - 100*time.Millisecond // not waited for at all
		if i == 0 {
			limit = AttributionBudget + 200*time.Millisecond
		}
		if took > limit {
			t.Errorf("sample %d took %s while the lookup was stuck (limit %s)", i, took, limit)
		}
		if s.Conntrack.Count == 0 || s.Conntrack.Max == 0 {
			t.Errorf("sample %d lost its count: %+v", i, s.Conntrack)
		}
		if s.Who == nil || s.Who.Note != "probe answer one" {
			t.Errorf("sample %d does not show the last answer: %+v", i, s.Who)
		}
		if i > 0 && !strings.Contains(strings.Join(s.Notes, "\n"), "the probes' owner lookup over budget") {
			t.Errorf("sample %d does not say the lookup is late: %q", i, s.Notes)
		}
		time.Sleep(200 * time.Millisecond)
	}
	probes.mu.Unlock()
	stuck = false
	c.whoRun.wait()
	if s := c.Sample(fixtureTime.Add(10*time.Second), time.Second); s.Who == nil || s.Who.Note != "probe answer two" {
		t.Errorf("after the lookup returned: %+v", s.Who)
	}
}

// TestOffPathFirstAnswerIsWaitedFor: with no earlier answer a sample waits
// for the first (a one-shot snapshot has nothing else to show), up to
// FirstAnswerBudget.
func TestOffPathFirstAnswerIsWaitedFor(t *testing.T) {
	var a offPath[*model.Who]
	here := a.start(func() *model.Who {
		time.Sleep(AttributionBudget + 300*time.Millisecond)
		return &model.Who{Note: "slow"}
	})
	if v, late := a.take(here); v == nil || v.Note != "slow" || late != 0 {
		t.Errorf("first answer %+v, late %s", v, late)
	}
}

// stuckProbes answers with note, and not at all while mu is held.
type stuckProbes struct {
	mu   sync.Mutex
	note string
}

func (p *stuckProbes) Set(time.Time, bool) {}
func (p *stuckProbes) Stop()               {}

func (p *stuckProbes) Read() *model.Who {
	p.mu.Lock()
	defer p.mu.Unlock()
	return &model.Who{Note: p.note}
}
