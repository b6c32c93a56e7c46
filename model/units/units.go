// Package units prints numbers, sizes and durations the one way every surface
// says them: "4,096", "0.5", "512 MiB", "2 m 5 s".
package units

import (
	"fmt"
	"strconv"
	"time"
)

// Int formats n with thousands separators: 4096 → "4,096".
func Int(n uint64) string {
	s := strconv.FormatUint(n, 10)
	if len(s) <= 3 {
		return s
	}
	out := make([]byte, 0, len(s)+len(s)/3)
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}

// Num formats a rate compactly: "0", "0.5", "34", "1,234".
func Num(v float64) string {
	switch {
	case v <= 0:
		return "0"
	case v < 10 && v != float64(int64(v)):
		return fmt.Sprintf("%.1f", v)
	default:
		return Int(uint64(v + 0.5))
	}
}

// Bytes formats a byte count: "512 MiB", "23.5 GiB".
func Bytes(b uint64) string {
	const unit = 1024
	if b < unit {
		return fmt.Sprintf("%d B", b)
	}
	div, exp := uint64(unit), 0
	for n := b / unit; n >= unit; n /= unit {
		div *= unit
		exp++
	}
	v := float64(b) / float64(div)
	suffix := []string{"KiB", "MiB", "GiB", "TiB", "PiB"}[exp]
	if v >= 10 || v == float64(int64(v)) {
		return fmt.Sprintf("%.0f %s", v, suffix)
	}
	return fmt.Sprintf("%.1f %s", v, suffix)
}

// Dur formats a duration the way the verdicts speak: "11 s", "2 m 5 s".
func Dur(d time.Duration) string {
	s := int64(d.Round(time.Second) / time.Second)
	if s < 60 {
		return fmt.Sprintf("%d s", s)
	}
	if s < 3600 {
		return fmt.Sprintf("%d m %d s", s/60, s%60)
	}
	return fmt.Sprintf("%d h %d m", s/3600, s%3600/60)
}
