package diagnose

import (
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/verdict"
)

// TestGCBehind: GC BEHIND when the count read as the census began is
// well above the entries its dump listed, saying whether the dump reaped
// them; never without the count read, for a few, for an approximate
// dump, nor when the census lists what the count says.
func TestGCBehind(t *testing.T) {
	s := table(801, 801, 262144)
	behind := &model.Census{Total: 1, CountBefore: 801, CountAfter: 1, CountRead: true}
	got := Judge(Inputs{Sample: s, Rates: idle(), Census: behind})
	v, ok := verdictOf(got, verdict.GCBehind)
	if !ok || !strings.Contains(v.Text(), "the count read 801 as the census began but its dump listed 1 live entries: 800 had expired") ||
		!strings.Contains(v.Text(), "the dump reaped them: the count read 1 after it") {
		t.Fatalf("verdicts %v", got)
	}
	still := *behind
	still.CountAfter = 790
	if v, _ := verdictOf(Judge(Inputs{Sample: s, Rates: idle(), Census: &still}), verdict.GCBehind); !strings.Contains(v.Text(), "the count still read 790 after it") {
		t.Errorf("not reaped, evidence %q", v.Text())
	}
	few, share, approx, unread := *behind, *behind, *behind, *behind
	few.Total = 760                                // 41 expired
	share.CountBefore, share.Total = 100000, 99000 // 1,000 expired: 1 %
	approx.Approximate, unread.CountRead = true, false
	for _, c := range []*model.Census{nil, &few, &share, &approx, &unread, {Total: 801, CountBefore: 801, CountRead: true}} {
		if hasVerdict(Judge(Inputs{Sample: s, Rates: idle(), Census: c}), verdict.GCBehind) {
			t.Errorf("GC BEHIND from census %+v", c)
		}
	}
}

// verdictOf is the verdict of kind k among vs.
func verdictOf(vs []verdict.Verdict, k verdict.Kind) (verdict.Verdict, bool) {
	for _, v := range vs {
		if v.Kind == k {
			return v, true
		}
	}
	return verdict.Verdict{}, false
}

// TestCountText: the count around the dump and what it counted unlisted,
// or that it was not read.
func TestCountText(t *testing.T) {
	if got := (model.Census{Total: 1, CountBefore: 801, CountAfter: 1, CountRead: true}).CountText(); got != "count 801 as the dump began, 1 after: 800 counted but not listed (expired, not yet reaped)" {
		t.Errorf("got %q", got)
	}
	if got := (model.Census{Total: 5}).CountText(); !strings.Contains(got, "not read") {
		t.Errorf("unread: %q", got)
	}
}

// TestFullOfExpiredEntries: a table pinned at its cap whose fresh census
// counted far more entries than its dump listed says TABLE FULL, and that
// it frees at the garbage collector's pace, not its hold's.
func TestFullOfExpiredEntries(t *testing.T) {
	s := table(1024, 1024, 1024)
	s.Interval = time.Second
	r := idle()
	r.CTTotal = model.CountersOf(map[model.Counter]uint64{model.Drop: 8})
	behind := &model.Census{Total: 300, CountBefore: 1024, CountAfter: 310, CountRead: true}
	v, ok := verdictOf(Judge(Inputs{Sample: s, Rates: r, Census: behind}), verdict.TableFull)
	if !ok || !strings.Contains(v.Text(), "the last census counted 724 entries its dump did not list: expired and not reaped, so the table frees at the garbage collector's pace") {
		t.Errorf("TABLE FULL evidence %q", v.Text())
	}
	if v, _ := verdictOf(Judge(Inputs{Sample: s, Rates: r, Census: &model.Census{Total: 1024, CountBefore: 1024, CountRead: true}}), verdict.TableFull); strings.Contains(v.Text(), "not reaped") {
		t.Errorf("a census that listed every entry: %q", v.Text())
	}
}

// TestDyingListIsNotGCBehind: entries counted but not listed that the
// dying list holds are EVENTS UNDELIVERED, not expired entries the
// collector is behind on; GC BEHIND counts only the rest, and a table
// full of them is not said to free at the collector's pace. Without the
// dying list read, the excess stays GC BEHIND's.
func TestDyingListIsNotGCBehind(t *testing.T) {
	s := table(300, 300, 262144)
	dying := &model.Census{Total: 1, CountBefore: 300, CountAfter: 300, CountRead: true, Dying: 299, DyingRead: true}
	got := Judge(Inputs{Sample: s, Rates: idle(), Census: dying})
	if v, ok := verdictOf(got, verdict.DyingList); !ok || !strings.Contains(v.Text(), "299 of the 300 entries counted are on the dying list") || hasVerdict(got, verdict.GCBehind) {
		t.Errorf("a census with 299 dying: %v", got)
	}
	if got := dying.CountText(); !strings.HasSuffix(got, "299 counted but not listed (on the dying list)") {
		t.Errorf("count text %q", got)
	}
	both := *dying
	both.Dying = 100 // 199 expired beside them
	got = Judge(Inputs{Sample: s, Rates: idle(), Census: &both})
	if v, ok := verdictOf(got, verdict.GCBehind); !ok || !hasVerdict(got, verdict.DyingList) || !strings.Contains(v.Text(), "199 had expired") ||
		!strings.HasSuffix(both.CountText(), "(100 on the dying list, the rest expired, not yet reaped)") {
		t.Errorf("100 dying, 199 expired: %v", got)
	}
	unread := *dying
	unread.DyingRead = false
	if got := Judge(Inputs{Sample: s, Rates: idle(), Census: &unread}); !hasVerdict(got, verdict.GCBehind) || hasVerdict(got, verdict.DyingList) {
		t.Errorf("the dying list not read: %v", got)
	}
	full := table(1024, 1024, 1024)
	full.Interval = time.Second
	r := idle()
	r.CTTotal = model.CountersOf(map[model.Counter]uint64{model.Drop: 8})
	allDying := &model.Census{Total: 300, CountBefore: 1024, CountAfter: 1024, CountRead: true, Dying: 724, DyingRead: true}
	if v, _ := verdictOf(Judge(Inputs{Sample: full, Rates: r, Census: allDying}), verdict.TableFull); strings.Contains(v.Text(), "not reaped") {
		t.Errorf("a table full of dying entries said to wait for the collector: %q", v.Text())
	}
}
