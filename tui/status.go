package tui

// statusLine is what the status line says, by precedence: what an
// action or the feed said last, else the live counts (the lab's clients,
// once the console has a few frames), else the intro.
type statusLine struct {
	intro, said, live string
}

// say puts msg on the line until something else is said.
func (s *statusLine) say(msg string) { s.said = msg }

// text is the line as shown.
func (s statusLine) text() string {
	switch {
	case s.said != "":
		return s.said
	case s.live != "":
		return s.live
	}
	return s.intro
}

// player is how the feed is read: a playback's speed (0: live, not a
// playback), whether a sample is asked of the feed, and whether it has no
// more (a recording played out, or stopped).
type player struct {
	speed          float64
	waiting, ended bool
}

// on reports whether the feed is a playback.
func (p player) on() bool { return p.speed > 0 }
