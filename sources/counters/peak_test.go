package counters

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/tablefull/tablefull/sources/kernelfs"
)

// TestPeakSamplerHoldsBurst: a value seen between two samples is the
// interval's peak even when the count has fallen again by sample time.
func TestPeakSamplerHoldsBurst(t *testing.T) {
	path, write := tempFile(t, "nf_conntrack_count")
	write("525\n")
	p, err := NewPeakSampler(path)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	p.Poll()
	write("4096\n")
	p.Poll()
	write("3100\n")
	p.Poll()
	if got := p.Take(3100); got != 4096 {
		t.Errorf("peak %d, want 4096", got)
	}
	if got := p.Take(3100); got != 3100 {
		t.Errorf("peak of an interval with no polls %d, want the sample's own 3100", got)
	}
	if _, err := NewPeakSampler(filepath.Join(t.TempDir(), "absent")); !errors.Is(err, kernelfs.ErrUnavailable) {
		t.Errorf("missing file: %v, want ErrUnavailable", err)
	}
}

// tempFile is a file in the test's directory and a function that
// replaces its text, as the kernel's files change between reads.
func tempFile(t *testing.T, name string) (path string, write func(string)) {
	t.Helper()
	path = filepath.Join(t.TempDir(), name)
	return path, func(s string) {
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
