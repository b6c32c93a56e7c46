package diagnose

import (
	"strings"
	"testing"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/verdict"
)

// TestCensusCountsOverHold: entries whose remaining timeout is longer
// than their class's hold now are counted by class with the longest left;
// within the slack, or with the hold unknown, they are not.
func TestCensusCountsOverHold(t *testing.T) {
	var holds model.ClassCounts
	holds[model.ClassTCPOpen] = 60
	c := model.CensusCounter{Holds: holds}
	for _, left := range []uint32{431990, 400000, 64, 30} { // two given under 5 days, one within the slack
		c.Add(model.Flow{Proto: 6, TCPState: model.TCPEstablished, Timeout: left, Status: model.StatusAssured | model.StatusSeenReply})
	}
	c.Add(model.Flow{Proto: 17, TCPState: -1, Timeout: 170}) // UDP: its hold not known here
	got := c.Census(3)
	if !got.HoldsCounted || got.OverHold[model.ClassTCPOpen] != 2 || got.OverLeft[model.ClassTCPOpen] != 431990 || got.OverHold[model.ClassUDPSingle] != 0 {
		t.Errorf("over hold %v, left %v, counted %v", got.OverHold, got.OverLeft, got.HoldsCounted)
	}
	if none := (&model.CensusCounter{}).Census(3); none.HoldsCounted {
		t.Error("holds counted without holds")
	}
}

// TestStaleTimeouts: STALE TIMEOUTS when enough of the census keeps
// timeouts longer than its class's hold; never without a census that
// counted them, nor for a few.
func TestStaleTimeouts(t *testing.T) {
	s := table(470, 470, 512)
	s.Conntrack.Holds[model.ClassTCPOpen] = 60
	stale := &model.Census{Total: 470, HoldsCounted: true}
	stale.OverHold[model.ClassTCPOpen] = 460
	stale.OverLeft[model.ClassTCPOpen] = 431990
	got := Judge(Inputs{Sample: s, Rates: idle(), Census: stale})
	if !hasVerdict(got, verdict.StaleTimeouts) {
		t.Fatalf("verdicts %v lack STALE TIMEOUTS", got)
	}
	for _, v := range got {
		if v.Kind == verdict.StaleTimeouts && !strings.Contains(v.Text(), "460 of the census's 470 entries keep timeouts given before their class's hold was lowered (tcp-open: 460, up to 119 h 59 m left; its hold now 1 m 0 s)") {
			t.Errorf("evidence %q", v.Text())
		}
		if v.Kind == verdict.StaleTimeouts && v.Entries != "-p tcp --state ESTABLISHED --timeout-over 65" {
			t.Errorf("STALE TIMEOUTS names the entries %q, want those established with more than the hold left", v.Entries)
		}
	}
	if f := model.StaleEntries(model.ClassUDPSingle, 10); f != "" {
		t.Errorf("stale UDP named %q: no filter here tells its two classes apart", f)
	}
	few := *stale
	few.OverHold[model.ClassTCPOpen] = 20
	for _, c := range []*model.Census{nil, {Total: 470}, &few} {
		if hasVerdict(Judge(Inputs{Sample: s, Rates: idle(), Census: c}), verdict.StaleTimeouts) {
			t.Errorf("STALE TIMEOUTS from census %+v", c)
		}
	}
}
