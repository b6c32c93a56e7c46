package lab

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/sources/tune"
)

// fixtureLab is a lab whose nf_conntrack_max is a file under a temporary
// root holding 256; it returns that file.
func fixtureLab(t *testing.T) (*Lab, string) {
	t.Helper()
	return fixtureLabAt(t, "256\n")
}

// fixtureLabAt is fixtureLab with the cap holding max.
func fixtureLabAt(t *testing.T, max string) (*Lab, string) {
	t.Helper()
	paths := Paths{RunDir: t.TempDir(), Proc: t.TempDir(), Sys: t.TempDir()}
	os.MkdirAll(filepath.Dir(knobPath(paths, GlobalMax)), 0o755)
	if err := os.WriteFile(knobPath(paths, GlobalMax), []byte(max), 0o644); err != nil {
		t.Fatal(err)
	}
	return &Lab{paths: paths}, knobPath(paths, GlobalMax)
}

// TestFixAfter: the raise comes once the delay has passed, the wait
// returns after it (the lab restores the host only then), and a lab that
// ends before the delay writes nothing.
func TestFixAfter(t *testing.T) {
	l, path := fixtureLab(t)
	wait := l.FixAfter(time.Millisecond, nil)
	time.Sleep(50 * time.Millisecond)
	if err := wait(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); strings.TrimSpace(string(b)) != "16384" {
		t.Errorf("the cap after --fix-after: %q, want 16384", b)
	}
	if got := remembered(t, l)[string(GlobalMax)]; got != "256" {
		t.Errorf("the lab remembers %q to restore, want 256", got)
	}

	l, path = fixtureLab(t)
	if err := l.FixAfter(time.Hour, nil)(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "256\n" {
		t.Errorf("the cap is %q after a lab that ended before the fix, want it untouched", b)
	}
}

// TestFixOnlyRaises: a cap already at FixMax or above (the host's, or an
// operator's larger fix from the t panel) is neither lowered nor
// remembered for the restore; a smaller one is raised.
func TestFixOnlyRaises(t *testing.T) {
	for _, tc := range []struct {
		cap  string
		want string
		was  uint64
	}{
		{"262144\n", "262144\n", 262144},
		{"16384\n", "16384\n", 16384},
		{"16383\n", "16384", 16383},
	} {
		l, path := fixtureLabAt(t, tc.cap)
		was, err := l.Fix(FixMax)
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(path); strings.TrimSpace(string(b)) != strings.TrimSpace(tc.want) || was != tc.was {
			t.Errorf("cap %q: now %q (found %d), want %q (found %d)", tc.cap, b, was, tc.want, tc.was)
		}
		if _, kept := remembered(t, l)[string(GlobalMax)]; kept != (tc.was < FixMax) {
			t.Errorf("cap %q: remembered for the restore %v", tc.cap, kept)
		}
	}
}

// TestScenariosAtRealProportions: every scenario that lowers the cap
// lowers it to no less than the kernel's floor of 512 buckets, over as
// many buckets, unless its point is other buckets (the collector over a
// big host's sparse hash, chains too long).
func TestScenariosAtRealProportions(t *testing.T) {
	for name, sc := range Scenarios {
		if sc.labMax == 0 {
			continue
		}
		if sc.labMax < 512 {
			t.Errorf("%s lowers max to %d, under the kernel's 512 buckets", name, sc.labMax)
		}
		if b := labBuckets(sc, 0); b != sc.labMax && !sc.hostBuckets {
			t.Errorf("%s: max %d over %d buckets", name, sc.labMax, b)
		}
	}
}

// TestLabBucketsKeepProportions: a scenario that lowers the cap sets the
// hashsize to it (max = buckets) unless asked otherwise, says which
// proportions it runs at, and --fix-after raises the buckets with the cap.
func TestLabBucketsKeepProportions(t *testing.T) {
	full := Scenarios["table-full"]
	for _, c := range []struct {
		sc    Scenario
		asked uint64
		want  uint64
	}{
		{full, 0, 512},
		{full, 262144, 262144},
		{Scenarios["hash-chains"], 0, 512},
		{Scenarios["healthy"], 0, 0},
		{Scenarios["gc-behind"], 0, 0},
	} {
		if got := labBuckets(c.sc, c.asked); got != c.want {
			t.Errorf("%s --buckets %d: %d, want %d", c.sc.Name, c.asked, got, c.want)
		}
	}
	for _, c := range []struct {
		max, buckets uint64
		says         string
	}{
		{4096, 4096, "max = buckets, the kernel's own proportions"},
		{256, 512, "as near as the kernel allows"},
		{256, 262144, "1024 buckets an entry, not the kernel's proportions (--buckets 256"},
		{0, 512, "the host's max over 512 buckets"},
	} {
		if got := (&Lab{Max: c.max, Buckets: c.buckets}).Proportions(); !strings.Contains(got, c.says) {
			t.Errorf("max %d over %d: %q, want %q", c.max, c.buckets, got, c.says)
		}
	}
	l, _ := fixtureLab(t)
	l.Buckets = 512
	hash := knobPath(l.paths, GlobalHashsize)
	os.MkdirAll(filepath.Dir(hash), 0o755)
	os.WriteFile(hash, []byte("512\n"), 0o644)
	if _, err := l.Fix(FixMax); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(hash); strings.TrimSpace(string(b)) != "16384" {
		t.Errorf("the hashsize after the fix: %q, want 16384 (max = buckets)", b)
	}
}

// remembered is what the lab's undo record keeps to restore.
func remembered(t *testing.T, l *Lab) map[string]string {
	t.Helper()
	rec, err := tune.LoadUndo(l.paths.undoDir())
	if err != nil && !errors.Is(err, tune.ErrNothingToUndo) {
		t.Fatal(err)
	}
	return rec.Live
}
