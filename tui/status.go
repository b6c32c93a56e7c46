package tui

// statusLine is what the status line says, by precedence: why the feed
// is down (link, whole: the transport's own words, until a sample comes),
// else what an action or the feed said last, else the live counts (the
// lab's clients, once the console has a few frames), else the intro.
type statusLine struct {
	intro, said, live, link string
}

// linkRows is how many rows of width w the status takes: a link error
// is shown whole, wrapped to at most maxLinkRows; anything else in one.
func (s statusLine) linkRows(w int) int {
	if s.link == "" {
		return 1
	}
	return len(wrapN(foreign(s.link), w, maxLinkRows))
}

// maxLinkRows bounds a link error on screen (its text is bounded too).
const maxLinkRows = 4

// say puts msg on the line until something else is said.
func (s *statusLine) say(msg string) { s.said = msg }

// text is the line as shown.
func (s statusLine) text() string {
	switch {
	case s.link != "":
		return s.link
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
