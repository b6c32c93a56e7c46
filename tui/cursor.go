package tui

// cursor is where the view stands in the history. Frames are numbered
// from the first ever added (absolute indexes); the analyzer keeps the
// newest kept of them. A paused cursor stays where it is; an unpaused
// one past the newest frame follows live.
type cursor struct {
	// seq counts the frames ever added; kept is how many the history
	// holds now.
	seq, kept int
	// view is the absolute index of the frame on screen, or -1 to follow
	// the newest.
	view   int
	paused bool
}

// newCursor follows live, or starts at the first frame of a playback.
func newCursor(playback bool) cursor {
	if playback {
		return cursor{view: 0}
	}
	return cursor{view: -1}
}

// add counts a new frame; kept is the history's length after it.
func (c *cursor) add(kept int) { c.seq, c.kept = c.seq+1, kept }

// oldest and newest are the absolute indexes of the frames kept.
func (c cursor) oldest() int { return c.seq - c.kept }
func (c cursor) newest() int { return c.seq - 1 }

// at is the absolute index of the frame on screen.
func (c cursor) at() int {
	if c.view < 0 {
		return c.newest()
	}
	return max(c.view, c.oldest())
}

// offset is the place of absolute index i in the kept history.
func (c cursor) offset(i int) int { return i - c.oldest() }

// following reports whether the view follows the newest frame.
func (c cursor) following() bool { return c.view < 0 }

// ahead is how many frames are newer than the one on screen.
func (c cursor) ahead() int { return c.newest() - c.at() }

// moveTo shows frame i, clamped to the history; past the newest it
// follows live when follow is set (not paused, not a playback).
func (c *cursor) moveTo(i int, follow bool) {
	i = max(c.oldest(), i)
	if i >= c.newest() {
		i = c.newest()
		if follow {
			i = -1
		}
	}
	c.view = i
}

// live follows the newest frame again, unpaused.
func (c *cursor) live() { c.paused, c.view = false, -1 }

// pause freezes the view on the frame on screen.
func (c *cursor) pause() { c.paused, c.view = true, c.at() }
