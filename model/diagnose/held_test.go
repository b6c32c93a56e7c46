package diagnose

import (
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
)

func TestHeldFor(t *testing.T) {
	for _, c := range []struct {
		name    string
		elapsed time.Duration
		gap     bool
		want    time.Duration
	}{
		{"the first frame closes no interval", 0, false, 0},
		{"a frame a second after the last", time.Second, false, time.Second},
		{"a late frame, not a gap", 2 * time.Second, false, 2 * time.Second},
		{"after a gap only its own interval", 40 * time.Second, true, time.Second},
	} {
		f := Frame{Sample: model.Sample{Interval: time.Second}, Rates: model.Rates{Elapsed: c.elapsed}, Gap: c.gap}
		if got := f.HeldFor(); got != c.want {
			t.Errorf("%s: HeldFor = %s, want %s", c.name, got, c.want)
		}
	}
}
