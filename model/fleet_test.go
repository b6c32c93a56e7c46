package model

import (
	"testing"
	"time"
)

// TestKindOrderFollowsRules: the fleet's severity table says what the
// verdict rules say.
func TestKindOrderFollowsRules(t *testing.T) {
	for _, in := range []Inputs{
		{Sample: Sample{Conntrack: Conntrack{Status: TableTracked, Count: 4096, Peak: 4096, Max: 4096}}, Rates: Rates{Elapsed: time.Second, CTTotal: CountersOf(map[Counter]uint64{Drop: 5, EarlyDrop: 3, ChainTooLong: 1})}},
		{Sample: Sample{Conntrack: Conntrack{Status: TableTracked, Count: 3900, Peak: 3900, Max: 4096}}, Rates: Rates{Elapsed: time.Second, ListenOverflowsPS: 3}},
	} {
		for _, v := range Judge(in) {
			if sev, _ := KindSeverity(v.Kind); sev != v.Severity {
				t.Errorf("%s: the fleet says severity %v, the rule %v", v.Kind, sev, v.Severity)
			}
		}
	}
}

func TestSortFleet(t *testing.T) {
	rows := []FleetRow{
		{Instance: "ok-b", Labels: "env=staging job=edge"},
		{Instance: "near", Kinds: []Kind{NearCap}, Peak: 3900, Limit: 4096},
		{Instance: "gone", Stale: true},
		{Instance: "full-slow", Kinds: []Kind{TableFull}, DropsPS: 3},
		{Instance: "ok-a"},
		{Instance: "full-fast", Kinds: []Kind{TableFull}, DropsPS: 300},
		{Instance: "listen", Kinds: []Kind{ListenOverflow}},
	}
	SortFleet(rows)
	want := []string{"full-fast", "full-slow", "listen", "gone", "near", "ok-a", "ok-b"}
	for i, w := range want {
		if rows[i].Instance != w {
			t.Fatalf("order %v, want %v", instances(rows), want)
		}
	}
	if got := FilterFleet(rows, "FULL"); len(got) != 2 {
		t.Errorf("filter FULL: %v", instances(got))
	}
	if got := FilterFleet(rows, "env=staging"); len(got) != 1 || got[0].Instance != "ok-b" {
		t.Errorf("filter by label: %v", instances(got))
	}
}

func instances(rows []FleetRow) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r.Instance)
	}
	return out
}
