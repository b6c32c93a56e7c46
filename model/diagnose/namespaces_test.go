package diagnose

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/verdict"
)

// TestNamespaceFull: another namespace pinned at the cap, or dropping,
// is TABLE FULL named after it while the host's own table is fine; one
// new since the last sample counts no drops from before; none near the
// cap says so.
func TestNamespaceFull(t *testing.T) {
	web := model.NetNS{Inode: 7, Name: "3f2a9c1e", Kind: "pod", PID: 4242, Count: 300, Drops: 900, DropsRead: true}
	quiet := model.NetNS{Inode: 8, Name: "lab", Kind: "netns", PID: 99, Count: 12}
	prev := &model.Namespaces{Rows: []model.NetNS{{Inode: 7, Name: "3f2a9c1e", Kind: "pod", PID: 4242, Count: 300, Drops: 780, DropsRead: true}, quiet}}
	cur := &model.Namespaces{Rows: []model.NetNS{web, quiet}}
	host := table(0, 0, 300)
	host.Conntrack.Status = model.TableUntracked
	host.Namespaces = cur
	full, _ := model.FullNamespaces(prev, cur, 300)
	if len(full) != 1 || full[0].Drops != 120 {
		t.Fatalf("full %+v, want the pod with 120 drops", full)
	}
	v := Judge(Inputs{Sample: host, Rates: idle(), FullNS: full})
	if v[0].Kind != verdict.TableFull || !strings.Contains(v[0].Text(), "in pod 3f2a9c1e (pid 4242) — 300 / 300 entries, 120 drops") {
		t.Errorf("verdict %+v", v[0])
	}
	if f, _ := model.FullNamespaces(nil, cur, 300); len(f) != 1 || f[0].Drops != 0 {
		t.Errorf("a namespace first seen now: %+v, want at the cap with no drops of this interval", f)
	}
	calm := &model.Namespaces{Rows: []model.NetNS{{Inode: 8, Name: "lab", Kind: "netns", PID: 99, Count: 12}}, Others: 11}
	host.Namespaces = calm
	calmFull, _ := model.FullNamespaces(calm, calm, 300)
	ok := Judge(Inputs{Sample: host, Rates: idle(), FullNS: calmFull})
	if ok[0].Kind != verdict.OK || !strings.Contains(ok[0].Text(), "no namespace near its cap (12 others, the fullest netns lab at 12)") {
		t.Errorf("calm host: %+v", ok[0])
	}
	// Root on a host with no other namespace: its only note is a process
	// even root cannot read. Nothing says root is needed.
	host.Namespaces = &model.Namespaces{Note: "1 process unreadable even as root: a namespace only it is in is missed"}
	alone := Judge(Inputs{Sample: host, Rates: idle()})
	if alone[0].Kind != verdict.OK || !strings.Contains(alone[0].Text(), "no other namespace read") || strings.Contains(alone[0].Text(), "root needed") {
		t.Errorf("a host alone: %+v", alone[0])
	}
}

// TestNamespaceDropsByCause: a namespace is full only at its cap or
// with drops its table made for being full. One at 60 % of the cap whose
// drops insert_failed accounts for (a NAT out of tuples, a clash) is
// named for that, never TABLE FULL; one at 94 % with no drop, though its
// count touched the cap between reads, is neither.
func TestNamespaceDropsByCause(t *testing.T) {
	nat := func(drops, insert uint64) model.NetNS {
		return model.NetNS{Inode: 9, Name: "node", Kind: "netns", PID: 77, Count: 2458, Drops: drops, InsertDrops: insert, DropsRead: true}
	}
	near := model.NetNS{Inode: 10, Name: "web-1", Kind: "netns", PID: 26887, Count: 3839, Peak: 4096, Drops: 0, DropsRead: true}
	prev := &model.Namespaces{Rows: []model.NetNS{nat(100, 100), near}}
	cur := &model.Namespaces{Rows: []model.NetNS{nat(400, 400), near}}
	full, insert := model.FullNamespaces(prev, cur, 4096)
	if len(full) != 0 || len(insert) != 1 || insert[0].InsertDrops != 300 {
		t.Fatalf("full %+v insert %+v: want none full, the node namespace's 300 insert drops", full, insert)
	}
	host := table(10, 10, 4096)
	host.Namespaces = cur
	vs := Judge(Inputs{Sample: host, Rates: idle(), FullNS: full, InsertNS: insert})
	for _, v := range vs {
		if v.Kind == verdict.TableFull {
			t.Errorf("TABLE FULL from a NAT's drops or a touch of the cap: %s", v.Text())
		}
	}
	if vs[0].Kind != verdict.InsertClash || !strings.Contains(vs[0].Text(), "in netns node (pid 77) — 300 packets dropped on inserting their entry") ||
		!strings.Contains(vs[0].Text(), "not a full table") {
		t.Errorf("the NAT's drops: %+v", vs[0])
	}
	// the same namespace's table drops (drop beyond insert_failed) are a full table's
	cur = &model.Namespaces{Rows: []model.NetNS{nat(700, 450), near}}
	if full, insert = model.FullNamespaces(prev, cur, 4096); len(full) != 1 || full[0].Drops != 250 || full[0].InsertDrops != 350 || len(insert) != 0 {
		t.Errorf("full %+v insert %+v: want the node namespace full with 250 table drops", full, insert)
	}
}

// TestSortNamespacesBounds: a node of 500 namespaces carries the
// fullest MaxNamespaceRows and counts the rest.
func TestSortNamespacesBounds(t *testing.T) {
	var rows []model.NetNS
	for i := range 500 {
		rows = append(rows, model.NetNS{Inode: uint64(i), Name: "pod", Count: uint64(i)})
	}
	ns := model.SortNamespaces(rows)
	if len(ns.Rows) != model.MaxNamespaceRows || ns.Rows[0].Count != 499 || ns.Others != 480 {
		t.Errorf("%d rows, first %d, others %d", len(ns.Rows), ns.Rows[0].Count, ns.Others)
	}
}

// TestSortNamespacesKeepsWhatAWholeSortWould: keeping the fullest rows
// without sorting the rest gives the rows, in the order, a whole stable
// sort gives, ties (equal counts and names) included.
func TestSortNamespacesKeepsWhatAWholeSortWould(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 19, 20, 21, 110, 1000} {
		for round := range 20 {
			rows := make([]model.NetNS, n)
			var total uint64
			for i := range rows {
				rows[i] = model.NetNS{Inode: uint64(i), Name: fmt.Sprintf("ns-%d", rng.IntN(8)), Count: uint64(rng.IntN(30))}
				total += rows[i].Count
			}
			whole := slices.Clone(rows)
			sort.SliceStable(whole, func(i, j int) bool {
				if whole[i].Count != whole[j].Count {
					return whole[i].Count > whole[j].Count
				}
				return whole[i].Name < whole[j].Name
			})
			got := model.SortNamespaces(rows)
			keep := min(n, model.MaxNamespaceRows)
			if !slices.Equal(got.Rows, whole[:keep]) {
				t.Fatalf("%d rows, round %d:\n got %v\nwant %v", n, round, got.Rows, whole[:keep])
			}
			var kept uint64
			for _, r := range got.Rows {
				kept += r.Count
			}
			if got.Others != n-keep || got.OthersEntries != total-kept {
				t.Fatalf("%d rows: others %d with %d entries, want %d with %d", n, got.Others, got.OthersEntries, n-keep, total-kept)
			}
		}
	}
}

func TestFullNamespaceSaysWhatItIsReadThrough(t *testing.T) {
	for _, c := range []struct {
		ns   model.NetNS
		says string
	}{
		{model.NetNS{Name: "web-7", Kind: "netns", PID: 17447, Count: 300}, "in netns web-7 (pid 17447) — 300 / 300 entries, 5 drops"},
		{model.NetNS{Name: "qrouter-1", Kind: "netns", Path: "/run/netns/qrouter-1", Count: 300}, "in netns qrouter-1 (no process in it) — 300 / 300 entries, 5 drops"},
	} {
		if got := (model.FullNS{NS: c.ns, Drops: 5}).Describe(300); got != c.says {
			t.Errorf("Describe = %q, want %q", got, c.says)
		}
	}
}

// TestChainsOfAnotherNamespace: another namespace's inserts refused for a
// long chain are the host's HASH CHAINS, since one hash serves them all:
// named, counted by their rise, sized on every namespace's entries; a
// namespace read once, or not read whole, says nothing.
func TestChainsOfAnotherNamespace(t *testing.T) {
	row := func(ino, count, chain uint64, whole bool) model.NetNS {
		return model.NetNS{Inode: ino, Name: fmt.Sprintf("web-%d", ino), Kind: "netns", Count: count, ChainTooLong: chain, DropsRead: whole}
	}
	prev := &model.Namespaces{Rows: []model.NetNS{row(1, 6000, 10, true), row(2, 6000, 0, false)}}
	cur := &model.Namespaces{Rows: []model.NetNS{row(1, 6000, 50, true), row(2, 6000, 90, true), row(3, 4000, 70, true)}}
	chains := model.ChainsNamespaces(prev, cur)
	if len(chains) != 1 || chains[0].NS.Inode != 1 || chains[0].ChainTooLong != 40 {
		t.Fatalf("chains %+v, want 40 in web-1 only", chains)
	}
	host := table(0, 0, 8192)
	host.Conntrack.Buckets, host.Namespaces = 512, cur
	vs := Judge(Inputs{Sample: host, Rates: idle(), ChainNS: chains})
	if vs[0].Kind != verdict.HashChains || !strings.Contains(vs[0].Text(), "40 chain-too-long events in netns web-1 (") ||
		!strings.Contains(vs[0].Text(), "2 × 16,000 entries of every namespace") || !strings.Contains(vs[0].Text(), "raise the hashsize to 16,384 buckets") {
		t.Errorf("the host's verdict: %v", vs[0])
	}
}
