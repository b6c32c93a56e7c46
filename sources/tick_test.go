package sources

import (
	"testing"
	"time"
)

// TestPaceTicks: the feed's pace is a timerfd here; it ticks every period,
// a tick not taken is not doubled, a reset restarts it with the new
// period, and after Stop it ticks no more.
func TestPaceTicks(t *testing.T) {
	p := newPace(20 * time.Millisecond)
	defer p.Stop()
	if _, ok := p.(*fdPace); !ok {
		t.Fatalf("the pace is %T, want the timerfd's", p)
	}
	start := time.Now()
	for range 3 {
		<-p.C()
	}
	if took := time.Since(start); took < 55*time.Millisecond || took > time.Second {
		t.Errorf("3 ticks of 20 ms took %s", took)
	}

	p.Reset(50 * time.Millisecond)
	time.Sleep(230 * time.Millisecond) // four expiries, one tick kept
	<-p.C()
	select {
	case <-p.C():
		t.Error("a second tick was waiting: expiries the reader missed were queued")
	default:
	}

	p.Reset(time.Hour)
	time.Sleep(10 * time.Millisecond)
	drain(p)
	select {
	case <-p.C():
		t.Error("a tick came within 100 ms of a reset to an hour")
	case <-time.After(100 * time.Millisecond):
	}

	p.Reset(20 * time.Millisecond)
	p.Stop()
	time.Sleep(10 * time.Millisecond)
	drain(p)
	select {
	case <-p.C():
		t.Error("a tick came after Stop")
	case <-time.After(100 * time.Millisecond):
	}
}

// drain takes a tick that is waiting, if one is.
func drain(p pace) {
	select {
	case <-p.C():
	default:
	}
}
