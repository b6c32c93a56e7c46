package lab

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// fixtureLab is a lab whose nf_conntrack_max is a file under a temporary
// root holding 256; it returns that file.
func fixtureLab(t *testing.T) (*Lab, string) {
	t.Helper()
	paths := Paths{RunDir: t.TempDir(), Proc: t.TempDir(), Sys: t.TempDir()}
	os.MkdirAll(filepath.Dir(paths.max()), 0o755)
	if err := os.WriteFile(paths.max(), []byte("256\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return &Lab{paths: paths, state: State{Globals: map[Global]string{}}}, paths.max()
}

// TestFixAfter: the raise comes once the delay has passed, the wait
// returns after it (the lab restores the host only then), and a lab that
// ends before the delay writes nothing.
func TestFixAfter(t *testing.T) {
	l, path := fixtureLab(t)
	wait := l.FixAfter(time.Millisecond)
	time.Sleep(50 * time.Millisecond)
	if err := wait(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "16384" {
		t.Errorf("the cap after --fix-after: %q, want 16384", b)
	}
	if l.state.Globals[GlobalMax] != "256" {
		t.Errorf("the lab remembers %q to restore, want 256", l.state.Globals[GlobalMax])
	}

	l, path = fixtureLab(t)
	if err := l.FixAfter(time.Hour)(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "256\n" {
		t.Errorf("the cap is %q after a lab that ended before the fix, want it untouched", b)
	}
}
