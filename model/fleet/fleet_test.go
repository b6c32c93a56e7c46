package fleet

import (
	"testing"

	"github.com/tablefull/tablefull/model/verdict"
)

func TestSortFleet(t *testing.T) {
	rows := []Row{
		{Instance: "ok-b", Labels: "env=staging job=edge"},
		{Instance: "near", Kinds: []verdict.Kind{verdict.NearCap}, Peak: 3900, Limit: 4096},
		{Instance: "gone", Stale: true},
		{Instance: "full-slow", Kinds: []verdict.Kind{verdict.TableFull}, DropsPS: 3},
		{Instance: "ok-a"},
		{Instance: "full-fast", Kinds: []verdict.Kind{verdict.TableFull}, DropsPS: 300},
		{Instance: "listen", Kinds: []verdict.Kind{verdict.ListenOverflow}},
	}
	Sort(rows)
	want := []string{"full-fast", "full-slow", "listen", "gone", "near", "ok-a", "ok-b"}
	for i, w := range want {
		if rows[i].Instance != w {
			t.Fatalf("order %v, want %v", instances(rows), want)
		}
	}
	if got := Filter(rows, "FULL"); len(got) != 2 {
		t.Errorf("filter FULL: %v", instances(got))
	}
	if got := Filter(rows, "env=staging"); len(got) != 1 || got[0].Instance != "ok-b" {
		t.Errorf("filter by label: %v", instances(got))
	}
}

func instances(rows []Row) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r.Instance)
	}
	return out
}
