package diagnose

import (
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/verdict"
)

// TestVerdictsCiteTheirFacts: a verdict carries the numbers it prints as
// facts, each with where it was read and what it is about, and the
// numbers of its table are the ones read; its words are rendered from
// them, so the words print what the facts hold.
func TestVerdictsCiteTheirFacts(t *testing.T) {
	in := Inputs{Sample: model.Sample{Interval: time.Second, Conntrack: model.Conntrack{Status: model.TableTracked, Count: 4096, Peak: 4096, Max: 4096, Buckets: 4096, TimeWaitHold: 120}}}
	in.Rates.CTTotal.Set(model.Drop, 54)
	in.Episode = &Episode{Seen: time.Date(2026, 12, 3, 19, 27, 41, 0, time.UTC), Drops: 54, Max: 4096}
	v := Judge(in)[0]
	if v.Kind != verdict.TableFull {
		t.Fatalf("want TABLE FULL, got %s", v)
	}
	cites := map[string]verdict.Fact{}
	for _, f := range v.Facts() {
		cites[f.Name] = f
	}
	for name, source := range map[string]string{"max": "nf_conntrack_max", "drops": "conntrack -S drop,"} {
		if f, ok := cites[name]; !ok || !strings.Contains(f.Source, source) || f.Scope == "" {
			t.Errorf("%s: cites %+v, want %s read from %s with its scope: %s", v.Kind, f, name, source, v.Text())
		}
	}
	if f := v.Faults(); len(f) > 0 {
		t.Errorf("faults in a true verdict: %v", f)
	}
	if !strings.Contains(v.Text(), "count pinned at max 4,096") || !strings.Contains(v.Text(), "54 drops") {
		t.Errorf("the words do not print the facts: %s", v.Text())
	}
	early := Inputs{Sample: model.Sample{Interval: time.Second, Conntrack: model.Conntrack{Status: model.TableTracked, Count: 4096, Peak: 4097, Max: 4096, Buckets: 4096}}}
	early.Rates.CTTotal.Set(model.EarlyDrop, 13)
	for _, v := range Judge(early) { // the kernel's count raced past max: the peak printed is the peak read
		if v.Kind == verdict.EarlyDropping {
			if f := v.Faults(); len(f) > 0 || !strings.Contains(v.Text(), "peak 4,097 of max 4,096") {
				t.Errorf("EARLY DROP %q: faults %v", v.Text(), f)
			}
		}
	}
}

// TestEveryRuleBuildsWholeClauses: over the verdicts the table tests
// build, every template's {name} has its fact, every fact is printed,
// every number fact says where it was read, and every product computes.
func TestEveryRuleBuildsWholeClauses(t *testing.T) {
	for _, in := range verdictInputs() {
		for _, v := range Judge(in) {
			if f := v.Faults(); len(f) > 0 {
				t.Errorf("%s: %v\n%s", v.Kind, f, v.Text())
			}
			for _, f := range v.Facts() {
				if f.Unit != verdict.Name && f.Source == "" && f.Name != "user" && f.Name != "system" && f.Name != "softirq" {
					t.Errorf("%s: fact %s has no source: %s", v.Kind, f.Name, v.Text())
				}
			}
		}
	}
}
