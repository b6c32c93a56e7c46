package diagnose

import "time"

// HeldFor is how long what a frame shows (its verdicts, a pinned table)
// counts as having held: the time since the previous sample when no
// samples are missing between them; after a gap (a paused recording, an
// agent that reconnected) only the sample's own interval, since the time
// unseen is unknown, not held; and nothing for the first frame, which
// closes no interval (a recording of 50 samples a second apart holds
// 49 s of verdicts). The incident, the report and the exporter all count
// held time by this one rule.
func (f Frame) HeldFor() time.Duration {
	switch {
	case f.Rates.Elapsed <= 0:
		return 0
	case f.Gap:
		return min(f.Sample.Interval, f.Rates.Elapsed)
	default:
		return f.Rates.Elapsed
	}
}
