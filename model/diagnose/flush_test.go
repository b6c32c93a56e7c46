package diagnose

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/verdict"
)

func TestFlushCounterFindsBursts(t *testing.T) {
	t0 := time.Date(2026, 12, 4, 14, 2, 3, 0, time.UTC)
	dns := netip.MustParseAddrPort("10.96.0.10:53")
	web := netip.MustParseAddrPort("10.96.0.20:80")
	at := func(sec, i, n int) time.Time { // the i-th of n deletions spread over second sec
		return t0.Add(time.Duration(sec)*time.Second + time.Duration(i)*time.Second/time.Duration(n+1))
	}
	for _, c := range []struct {
		name string
		// perSec is the deletions in each second from t0: UDP to dns,
		// then tcp to web.
		perSec  [][2]int
		wantN   int
		entries uint64
		udp     uint64
		seconds int
		topDest string
	}{
		{"one second of 1,000", [][2]int{{1000, 0}}, 1, 1000, 1000, 1, "udp 10.96.0.10:53"},
		{"under the minimum each second", [][2]int{{99, 0}, {99, 0}, {99, 0}}, 0, 0, 0, 0, ""},
		{"three seconds, one burst", [][2]int{{300, 0}, {200, 100}, {150, 0}}, 1, 750, 650, 3, "udp 10.96.0.10:53"},
		{"a quiet second splits them", [][2]int{{300, 0}, {5, 0}, {0, 400}}, 2, 400, 0, 1, "tcp 10.96.0.20:80"},
		{"steady trickle is no burst", [][2]int{{50, 40}, {50, 40}}, 0, 0, 0, 0, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var fc model.FlushCounter
			total := 0
			for sec, n := range c.perSec {
				for i := range n[0] {
					fc.Deleted(at(sec, i, n[0]+n[1]), 17, dns)
				}
				for i := range n[1] {
					fc.Deleted(at(sec, n[0]+i, n[0]+n[1]), 6, web)
				}
				total += n[0] + n[1]
			}
			fc.Tick(t0.Add(time.Duration(len(c.perSec)+1) * time.Second))
			got := fc.Recent()
			if fc.Deletions() != uint64(total) || len(got) != c.wantN {
				t.Fatalf("%d deletions, %d bursts %+v; want %d, %d", fc.Deletions(), len(got), got, total, c.wantN)
			}
			if c.wantN == 0 {
				return
			}
			last := got[len(got)-1]
			var sum uint64
			for _, d := range last.Dests {
				sum += d.Entries
			}
			if last.Entries != c.entries || last.UDP != c.udp || sum != last.Entries || last.Dests[0].Dest != c.topDest ||
				int(last.To.Sub(last.From)/time.Second)+1 != c.seconds {
				t.Errorf("burst %+v: want %d entries (%d UDP) over %d s, first %s, its destinations summing to its entries", last, c.entries, c.udp, c.seconds, c.topDest)
			}
		})
	}
}

func TestFlushedVerdict(t *testing.T) {
	t0 := time.Date(2026, 12, 4, 14, 2, 3, 0, time.UTC)
	burst := model.Flush{From: t0, To: t0, Entries: 1000, UDP: 1000, Dests: []model.FlushDest{{Dest: "udp 10.96.0.10:53", Entries: 1000, Service: "kube-system/kube-dns:dns"}}}
	for _, c := range []struct {
		name string
		f    *model.Flushes
		now  time.Time
		want bool
	}{
		{"not read", nil, t0, false},
		{"watched, none", &model.Flushes{Watching: true}, t0, false},
		{"just now", &model.Flushes{Watching: true, Recent: []model.Flush{burst}}, t0.Add(2 * time.Second), true},
		{"a minute ago", &model.Flushes{Watching: true, Recent: []model.Flush{burst}}, t0.Add(model.FlushShown), true},
		{"long ago", &model.Flushes{Watching: true, Recent: []model.Flush{burst}}, t0.Add(model.FlushShown + time.Second), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := Inputs{Sample: model.Sample{Time: c.now, Flushes: c.f}}
			v, ok := ruleFlushed(in)
			if ok != c.want {
				t.Fatalf("holds %v, want %v: %s", ok, c.want, v.Text())
			}
			if ok && !strings.Contains(v.Text(), "user space deleted 1,000 entries (1,000 UDP) in 1 s at 14:02:03: kube-system/kube-dns:dns (udp 10.96.0.10:53) 1,000") {
				t.Errorf("evidence %q", v.Text())
			}
			if ok {
				vs := Judge(in)
				if vs[0].Kind != verdict.EntriesFlushed {
					t.Errorf("Judge says %v", vs)
				}
			}
		})
	}
}

func TestFlushedJudgedOnlyWhereWatched(t *testing.T) {
	for _, c := range []struct {
		f    *model.Flushes
		want bool
	}{
		{nil, false},
		{&model.Flushes{Note: "not watched: no kube-proxy runs here"}, false},
		{&model.Flushes{Watching: true}, true},
	} {
		if got := JudgedIn(verdict.EntriesFlushed, model.Sample{Flushes: c.f}); got != c.want {
			t.Errorf("%+v: judged %v, want %v", c.f, got, c.want)
		}
	}
	if !JudgedIn(verdict.TableFull, model.Sample{}) || JudgedIn(verdict.ListenOverflow, model.Sample{Absent: model.Parts(model.PartTCP)}) {
		t.Errorf("the other kinds: judged by the parts they need")
	}
}

// TestFlushUnderWay: a burst is said while it goes on: after two full
// seconds of deletions, in the third, the counter gives it under way
// with its seconds so far, and the verdict says so; when a second falls
// short it ends, said as ended.
func TestFlushUnderWay(t *testing.T) {
	t0 := time.Date(2026, 12, 4, 14, 2, 3, 0, time.UTC)
	dns := netip.MustParseAddrPort("10.96.0.10:53")
	var fc model.FlushCounter
	for sec := range 3 {
		for i := range 500 {
			fc.Deleted(t0.Add(time.Duration(sec)*time.Second+time.Duration(i)*time.Millisecond), 17, dns)
		}
	}
	got := fc.Recent()
	if len(got) != 1 || !got[0].UnderWay || got[0].Entries != 1000 || !got[0].To.Equal(t0.Add(time.Second)) || len(got[0].Dests) != 1 {
		t.Fatalf("during the third second: %+v, want the first two seconds under way", got)
	}
	s := model.Sample{Time: t0.Add(2500 * time.Millisecond), Flushes: &model.Flushes{Watching: true, Deleted: fc.Deletions(), Recent: got}}
	v, ok := ruleFlushed(Inputs{Sample: s})
	if !ok || !strings.Contains(v.Text(), "under way") || !strings.Contains(v.Text(), "since 14:02:03") {
		t.Errorf("verdict %+v %v, want the burst said under way", v, ok)
	}
	fc.Tick(t0.Add(5 * time.Second))
	if got := fc.Recent(); len(got) != 1 || got[0].UnderWay || got[0].Entries != 1500 {
		t.Errorf("after it: %+v, want one burst of 1,500, ended", got)
	}
}
