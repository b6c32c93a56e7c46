package report

import (
	"fmt"
	"strings"
	"time"
)

// When is a --from or --to: a time (RFC 3339), a time of day on the
// recording's first day ("21:04:00", UTC), or an offset from the
// recording's start ("+90s", "5m"). The zero When is unset.
type When struct {
	at     time.Time
	offset time.Duration
	clock  time.Duration
	kind   int // 0 unset, 1 at, 2 offset, 3 clock
}

// ParseWhen reads a --from or --to.
func ParseWhen(s string) (When, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return When{}, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return When{at: t, kind: 1}, nil
	}
	if d, err := time.ParseDuration(strings.TrimPrefix(s, "+")); err == nil && d >= 0 {
		return When{offset: d, kind: 2}, nil
	}
	for _, layout := range []string{"15:04:05", "15:04"} {
		if t, err := time.Parse(layout, s); err == nil {
			return When{clock: time.Duration(t.Hour())*time.Hour + time.Duration(t.Minute())*time.Minute + time.Duration(t.Second())*time.Second, kind: 3}, nil
		}
	}
	return When{}, fmt.Errorf("time %q: want RFC 3339 (2026-11-29T21:04:00Z), a UTC time of day (21:04:00) or an offset from the start (+90s)", s)
}

// resolve is the time w names in a recording that started at start.
func (w When) resolve(start time.Time) time.Time {
	switch w.kind {
	case 1:
		return w.at
	case 2:
		return start.Add(w.offset)
	case 3:
		day := start.UTC().Truncate(24 * time.Hour)
		t := day.Add(w.clock)
		if t.Before(start.UTC().Add(-time.Second)) {
			t = t.Add(24 * time.Hour)
		}
		return t
	}
	return time.Time{}
}
