package model

import "time"

// Window summarises a stretch of frames: the numbers an operator compares
// before and after a change.
type Window struct {
	From, To          time.Time
	DropsPS           float64
	NewConnsPS        float64
	Pinned            time.Duration
	SynRetransPS      float64
	ListenOverflowsPS float64
}

// Summarise averages the frames' rates over their span.
func Summarise(frames []Frame) Window {
	var w Window
	if len(frames) == 0 {
		return w
	}
	w.From, w.To = frames[0].Sample.Time, frames[len(frames)-1].Sample.Time
	var secs float64
	for _, f := range frames {
		s := f.Rates.Elapsed.Seconds()
		if s <= 0 {
			continue
		}
		secs += s
		w.DropsPS += float64(f.Rates.Drops())
		w.NewConnsPS += f.Rates.NewConnsPS() * s
		w.SynRetransPS += f.Rates.SynRetransPS * s
		w.ListenOverflowsPS += f.Rates.ListenOverflowsPS * s
		if f.Pinned {
			w.Pinned += f.Rates.Elapsed
		}
	}
	if secs > 0 {
		w.DropsPS /= secs
		w.NewConnsPS /= secs
		w.SynRetransPS /= secs
		w.ListenOverflowsPS /= secs
	}
	return w
}

// BeforeAfter splits frames at mark into two windows of equal length: as
// long as the time since mark allows, at most span each.
func BeforeAfter(frames []Frame, mark time.Time, span time.Duration) (before, after Window) {
	if len(frames) == 0 {
		return
	}
	last := frames[len(frames)-1].Sample.Time
	d := min(span, last.Sub(mark))
	var b, a []Frame
	for _, f := range frames {
		t := f.Sample.Time
		switch {
		case !t.After(mark) && t.After(mark.Add(-d)):
			b = append(b, f)
		case t.After(mark) && !t.After(mark.Add(d)):
			a = append(a, f)
		}
	}
	return Summarise(b), Summarise(a)
}
