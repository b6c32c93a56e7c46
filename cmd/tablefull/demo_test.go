package main

import "testing"

// TestDemoInTmux: a speaker runs it at 80×24; the captions and the pinned
// episode appear.
func TestDemoInTmux(t *testing.T) {
	s := startTmux(t, 80, 24, "", "demo", "--speed", "4") // at 8 a loaded CI missed the fix's caption between two looks
	s.waitFor("REPLAY", "climbing")
	s.waitFor("Pinned at nf_conntrack_max")
	s.waitFor("episode", "TABLE FULL")
	s.waitFor("The fix: nf_conntrack_max raised")
	s.keys("q")
	s.waitFor("EXIT=0", "TERMINAL-RESTORED")
}
