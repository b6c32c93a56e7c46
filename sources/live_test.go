package sources

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/sources/counters"
	"github.com/tablefull/tablefull/sources/kernelfs"
	"github.com/tablefull/tablefull/sources/netns/nstest"
)

func TestPollEvery(t *testing.T) {
	for _, c := range []struct{ interval, want time.Duration }{
		{time.Second, counters.FastRate},
		{250 * time.Millisecond, 50 * time.Millisecond},
		{500 * time.Millisecond, counters.FastRate},
		{50 * time.Millisecond, 50 * time.Millisecond},
		{333 * time.Millisecond, counters.FastRate}, // no divisor ≥ 10 ms: samples land on the next tick
		{2 * time.Minute, counters.FastRate},
	} {
		if got := pollEvery(c.interval); got != c.want {
			t.Errorf("pollEvery(%v) = %v, want %v", c.interval, got, c.want)
		}
	}
}

// TestLiveCatchesBurst: the one ticker of Live both paces the samples and
// polls the count, so a burst that is gone by sample time is still the
// sample's peak.
func TestLiveCatchesBurst(t *testing.T) {
	root, c := writableHost(t)
	count := filepath.Join(root, "proc", "sys", "net", "netfilter", "nf_conntrack_count")
	before, err := os.ReadFile(count)
	if err != nil {
		t.Fatal(err)
	}
	l := NewLive(c, time.Second)
	defer l.Stop()
	first, err := l.Next()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(count, []byte("4000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(350 * time.Millisecond) // three polls or more, less than one interval
	if err := os.WriteFile(count, before, 0o644); err != nil {
		t.Fatal(err)
	}
	var burst bool
	for range 3 {
		s, err := l.Next()
		if err != nil {
			t.Fatal(err)
		}
		if s.Interval < 500*time.Millisecond || s.Interval > 2*time.Second {
			t.Errorf("sample %v after the last, want about 1s", s.Interval)
		}
		if s.Conntrack.Peak == 4000 && s.Conntrack.Count == first.Conntrack.Count {
			burst = true
		}
	}
	if !burst {
		t.Errorf("no sample had the burst of 4000 as its peak (count %d)", first.Conntrack.Count)
	}
}

// writableHost copies the healthy fixture host to a temp dir, so a test
// can change its files, and returns the root and a collector on it.
func writableHost(t *testing.T) (string, *Collector) {
	t.Helper()
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS(filepath.Join("..", "testdata", "hosts", "healthy"))); err != nil {
		t.Fatal(err)
	}
	c, err := NewCollector(kernelfs.Roots{Proc: filepath.Join(root, "proc"), Sys: filepath.Join(root, "sys"), Dev: filepath.Join(root, "dev"), Run: filepath.Join(root, "run")})
	if err != nil {
		t.Fatal(err)
	}
	return root, c
}

// TestLiveSetInterval: a shorter interval applies from the next sample,
// not after the old one has run out.
func TestLiveSetInterval(t *testing.T) {
	c := fixtureCollector(t, "healthy", nil)
	l := NewLive(c, 10*time.Second)
	defer l.Stop()
	if _, err := l.Next(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	l.SetInterval(250 * time.Millisecond)
	for range 3 {
		if _, err := l.Next(); err != nil {
			t.Fatal(err)
		}
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("three samples at 250ms took %v: the new interval did not apply", d)
	}
}

// TestLiveAdaptiveSampling: far from the cap the count is read once a
// sample; within reach of it, 10 times a second, and a burst to the cap
// between samples is the next sample's peak; far again, once a sample.
func TestLiveAdaptiveSampling(t *testing.T) {
	root, c := writableHost(t)
	netfilter := filepath.Join(root, "proc", "sys", "net", "netfilter")
	os.WriteFile(filepath.Join(netfilter, "nf_conntrack_max"), []byte("4096\n"), 0o644)
	count := filepath.Join(netfilter, "nf_conntrack_count")
	set := func(v string) {
		if err := os.WriteFile(count, []byte(v+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const interval = 500 * time.Millisecond
	set("100") // before the sampler starts: its first read must not see the fixture's count
	l := NewLive(c, interval)
	defer l.Stop()
	next := func() model.Sample {
		t.Helper()
		s, err := l.Next()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	period := func() time.Duration { return time.Duration(l.period.Load()) }
	// settles waits for the period the sampler sets just after it sends a
	// sample: the reader may see the sample first.
	settles := func(want time.Duration) time.Duration {
		for end := time.Now().Add(time.Second); period() != want && time.Now().Before(end); {
			time.Sleep(5 * time.Millisecond)
		}
		return period()
	}
	set("100")
	next()
	next()
	if p := settles(interval); p != interval {
		t.Fatalf("far from the cap the ticker runs every %v, want once a sample (%v)", p, interval)
	}
	set("3000") // within reach
	next()
	if p := settles(counters.FastRate); p != counters.FastRate {
		t.Fatalf("within reach of the cap the ticker runs every %v, want %v", p, counters.FastRate)
	}
	// the burst begins within a fast tick of a sample and ends half an
	// interval after it, so it lies between that sample and the next: a
	// sample read late (a loaded machine) is let go and the next one
	// taken, or the burst would straddle a sample
	for attempt := 0; ; attempt++ {
		start := next().Time // start of a fast interval
		if time.Since(start) > counters.FastRate {
			if attempt == 20 {
				t.Fatal("no sample was read within a fast tick of its time in 20 tries")
			}
			continue
		}
		set("4096")
		time.Sleep(time.Until(start.Add(interval / 2)))
		set("3000")
		break
	}
	if s := next(); s.Conntrack.Peak != 4096 || s.Conntrack.Count != 3000 {
		t.Errorf("the burst to the cap: count %d peak %d, want 3000 and 4096", s.Conntrack.Count, s.Conntrack.Peak)
	}
	set("100")
	next()
	next()
	if p := settles(interval); p != interval {
		t.Errorf("far again: the ticker runs every %v, want %v", p, interval)
	}
}

// TestLiveFastForNamespaceNearCap: another namespace near the cap turns
// the 10 Hz sampling on while the host's own table is far from it.
func TestLiveFastForNamespaceNearCap(t *testing.T) {
	root, c := writableHost(t)
	netfilter := filepath.Join(root, "proc", "sys", "net", "netfilter")
	os.WriteFile(filepath.Join(netfilter, "nf_conntrack_max"), []byte("320\n"), 0o644)
	os.WriteFile(filepath.Join(netfilter, "nf_conntrack_count"), []byte("10\n"), 0o644)
	nstest.FakeNetnsProcess(filepath.Join(root, "proc"), "4242", "200", "redis-server") // 300 of 320
	const interval = 500 * time.Millisecond
	l := NewLive(c, interval)
	defer l.Stop()
	for range 2 {
		if _, err := l.Next(); err != nil {
			t.Fatal(err)
		}
	}
	if p := time.Duration(l.period.Load()); p == interval {
		t.Errorf("a namespace at 94 %% of the cap: the ticker still runs once a sample (%v)", p)
	}
}

// TestLiveSaysTheFirstDropAtOnce: near the cap the count is glanced at
// 10 Hz; once it is at the cap and the drop counter rises, the sample is
// taken at that glance, not at the interval's end, so the first dropped
// packet is on screen within a fast tick or two; and only the first: the
// next sample keeps the interval.
func TestLiveSaysTheFirstDropAtOnce(t *testing.T) {
	root, c := writableHost(t)
	netfilter := filepath.Join(root, "proc", "sys", "net", "netfilter")
	stat := filepath.Join(root, "proc", "net", "stat", "nf_conntrack")
	write := func(path, text string) {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const interval = 3 * time.Second
	l := NewLive(c, interval)
	defer l.Stop()
	if _, err := l.Next(); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(netfilter, "nf_conntrack_count"), "200000\n") // 76 % of the cap: glanced at from the next sample on
	near, err := l.Next()
	if err != nil || near.Conntrack.Count != 200000 {
		t.Fatalf("the sample near the cap: %+v %v", near.Conntrack, err)
	}
	time.Sleep(500 * time.Millisecond)
	write(filepath.Join(netfilter, "nf_conntrack_count"), "262144\n")
	b, _ := os.ReadFile(stat)
	lines := strings.Split(string(b), "\n")
	cols := strings.Fields(lines[1])
	cols[10] = "00000005" // drop
	lines[1] = strings.Join(cols, " ")
	write(stat, strings.Join(lines, "\n"))
	dropAt := time.Now()
	s, err := l.Next()
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(dropAt); s.CTStats.Total(model.Drop) != 5 || took > interval/4 {
		t.Errorf("the first drop was sampled %v after it (drops %d), want within a few fast ticks, not the %v interval", took, s.CTStats.Total(model.Drop), interval)
	}
	if next, err := l.Next(); err != nil || next.Interval < interval*3/4 {
		t.Errorf("the sample after the first drop came %v after it (%v), want the interval", next.Interval, err)
	}
}
