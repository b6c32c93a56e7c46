package diagnose

import (
	"testing"

	"github.com/tablefull/tablefull/model"
)

// TestHoldOfByKernel: before 6.1 each retransmitted SYN renews an
// unanswered connection's SYN_SENT timeout, so its entry lives the
// retries' span longer; other classes, later kernels and an unknown
// release hold what the knob says.
func TestHoldOfByKernel(t *testing.T) {
	for _, c := range []struct {
		cl      model.Class
		knob    uint64
		release string
		want    uint64
	}{
		{model.ClassTCPUnanswered, 120, "5.10.0-30-amd64", 183},
		{model.ClassTCPUnanswered, 120, "6.0.19", 183},
		{model.ClassTCPUnanswered, 120, "6.1.0-28-amd64", 120},
		{model.ClassTCPUnanswered, 120, "6.2.0", 120},
		{model.ClassTCPUnanswered, 120, "6.18.44", 120},
		{model.ClassTCPUnanswered, 120, "", 120},
		{model.ClassTCPUnanswered, 0, "5.10.0", 0},
		{model.ClassTCPDone, 120, "5.10.0", 120},
	} {
		if got := model.HoldOf(c.cl, c.knob, c.release); got != c.want {
			t.Errorf("HoldOf(%v, %d, %q) = %d, want %d", c.cl, c.knob, c.release, got, c.want)
		}
	}
	s := model.Sample{KernelRelease: "5.15.0-91-generic", Conntrack: model.Conntrack{Status: model.TableTracked, Count: 1830, Max: 4096, Holds: model.ClassCounts{model.ClassTCPUnanswered: 120}}}
	f := Fill{Classes: []ClassFill{{Class: model.ClassTCPUnanswered, RatePS: 10}}}.WithHolds(s.Conntrack, s.KernelRelease)
	if f.Classes[0].Hold != 183 {
		t.Errorf("on 5.15 unanswered TCP is held %d s, want 183", f.Classes[0].Hold)
	}
}
