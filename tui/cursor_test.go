package tui

import "testing"

// TestCursor: where the view stands as frames arrive, the history trims
// and the operator moves.
func TestCursor(t *testing.T) {
	c := newCursor(false)
	for range 10 {
		c.add(min(c.seq+1, 6)) // a history of 6 frames
	}
	if c.oldest() != 4 || c.newest() != 9 || c.at() != 9 || !c.following() {
		t.Fatalf("live: oldest %d newest %d at %d following %v", c.oldest(), c.newest(), c.at(), c.following())
	}
	c.moveTo(1, true)
	if c.at() != 4 || c.ahead() != 5 || c.offset(c.at()) != 0 {
		t.Errorf("moved before the oldest: at %d ahead %d offset %d", c.at(), c.ahead(), c.offset(c.at()))
	}
	c.moveTo(20, true)
	if !c.following() {
		t.Errorf("moved past the newest without pause: view %d, want following", c.view)
	}
	c.pause()
	c.add(6)
	if c.at() != 9 || c.ahead() != 1 || !c.paused {
		t.Errorf("paused: at %d ahead %d", c.at(), c.ahead())
	}
	c.moveTo(20, false)
	if c.following() || c.at() != 10 {
		t.Errorf("paused past the newest: view %d, want the newest frame", c.view)
	}
	c.live()
	if !c.following() || c.paused {
		t.Errorf("live again: %+v", c)
	}
	if p := newCursor(true); p.at() != 0 || p.following() {
		t.Errorf("a playback starts at the first frame: %+v", p)
	}
}

// TestStatusLine: what was said beats the live counts, which beat the
// intro.
func TestStatusLine(t *testing.T) {
	s := statusLine{intro: "lab table-full: look for the pin"}
	if s.text() != s.intro {
		t.Errorf("intro: %q", s.text())
	}
	s.live = "clients 8, 80/s"
	if s.text() != s.live {
		t.Errorf("live over the intro: %q", s.text())
	}
	s.say("recorded x.jsonl")
	if s.text() != "recorded x.jsonl" {
		t.Errorf("said over live: %q", s.text())
	}
}
