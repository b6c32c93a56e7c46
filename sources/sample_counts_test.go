package sources

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestQuietLiveWakesForTheCap: a quiet feed takes whole samples only
// every quiet period while the table is far from its cap, yet the
// interval's glance catches the count near the cap, and drops, and takes
// the sample at once, then samples every interval (the full rate).
func TestQuietLiveWakesForTheCap(t *testing.T) {
	root, c := writableHost(t)
	netfilter := filepath.Join(root, "proc", "sys", "net", "netfilter")
	stat := filepath.Join(root, "proc", "net", "stat", "nf_conntrack")
	l := NewLive(c, 100*time.Millisecond)
	defer l.Stop()
	l.SetQuiet(time.Second)
	for range 2 { // the first at once, the second an interval later (a feed starts at the full rate)
		if _, err := l.Next(); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		s, err := l.Next()
		if err != nil {
			t.Fatal(err)
		}
		// Samples keep their phase: after one delivered late (a loaded
		// CI machine), the next comes that much sooner. Quiet is a whole
		// sample every second or so, never every interval (100 ms).
		if s.Interval < 400*time.Millisecond || s.Interval > 1500*time.Millisecond {
			t.Errorf("a quiet sample %v after the last, want about 1s", s.Interval)
		}
	}
	for name, change := range map[string]func(){
		"near the cap": func() { os.WriteFile(filepath.Join(netfilter, "nf_conntrack_count"), []byte("262000\n"), 0o644) },
		"drops": func() {
			b, _ := os.ReadFile(stat)
			lines := strings.Split(string(b), "\n") // the first CPU's drop column (11th) rises
			f := strings.Fields(lines[1])
			f[10] = "00000007"
			lines[1] = strings.Join(f, " ")
			os.WriteFile(stat, []byte(strings.Join(lines, "\n")), 0o644)
		},
	} {
		t.Run(name, func(t *testing.T) {
			root2, c2 := writableHost(t)
			netfilter, stat = filepath.Join(root2, "proc", "sys", "net", "netfilter"), filepath.Join(root2, "proc", "net", "stat", "nf_conntrack")
			l := NewLive(c2, 100*time.Millisecond)
			defer l.Stop()
			l.SetQuiet(time.Hour)
			first, _ := l.Next()
			if first.Conntrack.Count != 525 {
				t.Fatalf("first count %d", first.Conntrack.Count)
			}
			time.Sleep(250 * time.Millisecond)
			change()
			changed := time.Now()
			// Sample 0 may be the one taken before the change (the feed
			// starts at the full rate); the glance must then take sample 1
			// soon after the change, not an hour on, and sample 2 an
			// interval after it. The bounds leave room for a loaded
			// machine (CI read a sample 400 ms after the one before it,
			// 150 ms of which came before the change).
			type arrival struct {
				interval time.Duration
				at       time.Time
			}
			got := make(chan arrival, 3)
			go func() {
				for range 3 {
					s, err := l.Next()
					if err != nil {
						return
					}
					got <- arrival{s.Interval, time.Now()}
				}
			}()
			for i := range 3 {
				select {
				case a := <-got:
					if i == 1 && a.at.Sub(changed) > time.Second {
						t.Errorf("sample 1 came %v after the change, want at once", a.at.Sub(changed))
					}
					if i == 2 && a.interval > 500*time.Millisecond {
						t.Errorf("sample 2 came %v after the one before, want the full rate (100ms)", a.interval)
					}
				case <-time.After(3 * time.Second):
					t.Fatalf("no sample %d within 3 s of the change: the glance did not wake the quiet feed", i)
				}
			}
		})
	}
}
