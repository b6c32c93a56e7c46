package sources

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestPollEvery(t *testing.T) {
	for _, c := range []struct{ interval, want time.Duration }{
		{time.Second, FastRate},
		{250 * time.Millisecond, 50 * time.Millisecond},
		{500 * time.Millisecond, FastRate},
		{50 * time.Millisecond, 50 * time.Millisecond},
		{333 * time.Millisecond, FastRate}, // no divisor ≥ 10 ms: samples land on the next tick
		{2 * time.Minute, FastRate},
	} {
		if got := pollEvery(c.interval); got != c.want {
			t.Errorf("pollEvery(%v) = %v, want %v", c.interval, got, c.want)
		}
	}
}

// TestLiveCatchesBurst: the one ticker of Live both paces the samples and
// polls the count, so a burst that is gone by sample time is still the
// sample's peak — also after Repace restarts the ticker (as the console's
// Init does), which must keep the 10 Hz period, not take the interval's.
func TestLiveCatchesBurst(t *testing.T) {
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS(filepath.Join("..", "testdata", "hosts", "healthy"))); err != nil {
		t.Fatal(err)
	}
	c, err := NewCollector(Roots{Proc: filepath.Join(root, "proc"), Sys: filepath.Join(root, "sys"), Dev: filepath.Join(root, "dev"), Run: filepath.Join(root, "run")})
	if err != nil {
		t.Fatal(err)
	}
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
	l.Repace()
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
