package model

import (
	"net/netip"
	"testing"
	"time"
)

func TestFlushCounterIsBounded(t *testing.T) {
	var fc FlushCounter
	t0 := time.Date(2026, 12, 4, 14, 0, 0, 0, time.UTC)
	for b := range 2 * MaxFlushes {
		for i := range 200 {
			port := uint16(i) // 200 destinations, more than flushKeys
			fc.Deleted(t0.Add(time.Duration(3*b)*time.Second+time.Duration(i)*time.Millisecond), 17, netip.AddrPortFrom(netip.MustParseAddr("10.0.0.1"), port))
		}
	}
	fc.Tick(t0.Add(time.Hour))
	got := fc.Recent()
	if len(got) != MaxFlushes || len(got[0].Dests) != MaxFlushDests || len(fc.burstDests) != 0 || len(fc.secDests) != 0 {
		t.Errorf("%d bursts kept, %d destinations said, %d and %d tallied", len(got), len(got[0].Dests), len(fc.burstDests), len(fc.secDests))
	}
	if !got[len(got)-1].From.Equal(t0.Add(time.Duration(3*(2*MaxFlushes-1)) * time.Second)) {
		t.Errorf("the newest burst is not kept last: %v", got[len(got)-1].From)
	}
}
