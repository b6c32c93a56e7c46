package model

import (
	"strings"
	"testing"
	"time"
)

// TestVerdictsCiteTheirFacts: a verdict carries the numbers of its table
// it prints, each with where it was read and what it is about; a number
// it prints that is not one read is a fault, said once (FactFaults) for
// every surface's test to ask.
func TestVerdictsCiteTheirFacts(t *testing.T) {
	in := Inputs{Sample: Sample{Interval: time.Second, Conntrack: Conntrack{Status: TableTracked, Count: 4096, Peak: 4096, Max: 4096, Buckets: 4096, TimeWaitHold: 120}}}
	in.Rates.CTTotal.Set(Drop, 54)
	in.Episode = &Episode{Seen: time.Date(2026, 12, 3, 19, 27, 41, 0, time.UTC), Drops: 54, Max: 4096}
	v := Judge(in)[0]
	if v.Kind != TableFull {
		t.Fatalf("want TABLE FULL, got %s", v)
	}
	cites := map[string]Fact{}
	for _, f := range v.Facts {
		cites[f.Name] = f
	}
	for name, source := range map[string]string{"max": "nf_conntrack_max", "drops": "conntrack -S drop,"} {
		if f, ok := cites[name]; !ok || !strings.Contains(f.Source, source) || f.Scope == "" {
			t.Errorf("%s: cites %+v, want %s read from %s with its scope: %s", v.Kind, f, name, source, v.Evidence)
		}
	}
	if f := v.FactFaults(); len(f) > 0 {
		t.Errorf("faults in a true verdict: %v", f)
	}
	read := []Fact{{Name: "count", Value: 4096}, {Name: "peak", Value: 4096}, {Name: "max", Value: 4096}}
	for _, c := range []struct{ evidence, want string }{
		{"count 4,338 of max 4,096", "prints count 4,338"},
		{"4,096 of 8,192 entries: 4,096 tcp/80", "prints max 8,192"},
		{"peak 4,000 of max 4,096", "prints peak 4,000"},
	} {
		bad := Verdict{Kind: EarlyDropping, Evidence: c.evidence, Facts: read}
		if f := bad.FactFaults(); len(f) == 0 || !strings.Contains(strings.Join(f, "; "), c.want) {
			t.Errorf("%q: faults %v, want one that %q", c.evidence, f, c.want)
		}
	}
	early := Inputs{Sample: Sample{Interval: time.Second, Conntrack: Conntrack{Status: TableTracked, Count: 4096, Peak: 4097, Max: 4096, Buckets: 4096}}}
	early.Rates.CTTotal.Set(EarlyDrop, 13)
	for _, v := range Judge(early) { // the kernel's count raced past max: the peak printed is the peak read
		if v.Kind == EarlyDropping {
			if f := v.FactFaults(); len(f) > 0 || !strings.Contains(v.Evidence, "peak 4,097 of max 4,096") {
				t.Errorf("EARLY DROP %q: faults %v", v.Evidence, f)
			}
		}
	}
	other := Verdict{Kind: TableFull, Table: "netns lab", Evidence: "in netns lab: 400 of 400 entries", Facts: nil}
	if f := other.FactFaults(); len(f) > 0 {
		t.Errorf("another table's numbers checked against this one's: %v", f)
	}
}
