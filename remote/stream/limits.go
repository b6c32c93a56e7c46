package stream

import (
	"bytes"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/tablefull/tablefull/model"
)

// Limits on what one stream line may carry. They are generous for any
// real host and bound the memory a hostile or broken remote can make the
// console spend: a sample over them is dropped with a note, and the
// session goes on.
const (
	// MaxCPUs and MaxDisks bound the rows of one sample.
	MaxCPUs  = 8192
	MaxDisks = 4096
	// MaxKernelLines bounds the kernel-log lines of one sample (the
	// kernel rate-limits them to a few a second).
	MaxKernelLines = 1024
	// MaxNotes bounds a sample's notes.
	MaxNotes = 32
	// MaxString bounds every string in a sample or a header, in bytes.
	MaxString = 1024
	// maxCensusKeys bounds a census's protocol and state maps and its top lists.
	maxCensusKeys = 256
	// maxArrays and maxKeys bound the JSON arrays and object keys of one
	// line, checked before it is decoded: a line of "[]" or "{"a":0}"
	// repeated would otherwise cost tens of times its size once decoded.
	maxArrays = 2*MaxCPUs + MaxDisks + MaxKernelLines + 4*maxCensusKeys + 4*model.MaxEntryTops + 64
	maxKeys   = 4*MaxKernelLines + 2*maxCensusKeys + 4*MaxNotes + 256
)

// ErrTooBig reports a sample over the limits; it was dropped.
var ErrTooBig = errors.New("sample over the limits")

// checkShape refuses, before decoding, a line with more arrays or object
// keys than a sample within the limits can have.
func checkShape(line []byte) error {
	if n := bytes.Count(line, []byte("[")); n > maxArrays {
		return fmt.Errorf("%w: %d arrays in one line (at most %d)", ErrTooBig, n, maxArrays)
	}
	if n := bytes.Count(line, []byte(":")); n > maxKeys {
		return fmt.Errorf("%w: %d keys or colons in one line (at most %d)", ErrTooBig, n, maxKeys)
	}
	return nil
}

// checkRows refuses a decoded sample with more rows than the limits.
func checkRows(w *wireSample) error {
	cpus := len(w.CPU)
	if w.Counters != nil {
		cpus = max(cpus, len(w.Counters.PerCPU))
	}
	switch {
	case cpus > MaxCPUs:
		return fmt.Errorf("%w: %d CPUs (at most %d)", ErrTooBig, cpus, MaxCPUs)
	case len(w.Disk) > MaxDisks:
		return fmt.Errorf("%w: %d disks (at most %d)", ErrTooBig, len(w.Disk), MaxDisks)
	case w.KernelLog != nil && len(w.KernelLog.Lines) > MaxKernelLines:
		return fmt.Errorf("%w: %d kernel log lines (at most %d)", ErrTooBig, len(w.KernelLog.Lines), MaxKernelLines)
	case len(w.Notes) > MaxNotes:
		return fmt.Errorf("%w: %d notes (at most %d)", ErrTooBig, len(w.Notes), MaxNotes)
	case w.Entries != nil && (len(w.Entries.TopDests) > model.MaxEntryTops || len(w.Entries.TopSources) > model.MaxEntryTops):
		return fmt.Errorf("%w: new-entry top lists over %d", ErrTooBig, model.MaxEntryTops)
	}
	return nil
}

// keepCensus refuses a stream's census with more keys or rows than the
// limits, and bounds the rest.
func keepCensus(c *model.Census) (*model.Census, error) {
	switch {
	case c == nil:
		return nil, nil
	case len(c.ByProto) > maxCensusKeys || len(c.TCPState) > maxCensusKeys ||
		len(c.TopPorts) > maxCensusKeys || len(c.TopSources) > maxCensusKeys || len(c.TopDests) > maxCensusKeys ||
		len(c.TopZones) > maxCensusKeys || len(c.TopTimeWaitDests) > maxCensusKeys || len(c.StaleDNAT) > model.StaleDNATShown:
		return nil, fmt.Errorf("%w: census over %d keys", ErrTooBig, maxCensusKeys)
	case c.Owners != nil && len(c.Owners.Top) > model.OwnersShown:
		return nil, fmt.Errorf("%w: %d owners (at most %d)", ErrTooBig, len(c.Owners.Top), model.OwnersShown)
	}
	return boundCensus(c), nil
}

// keepListeners refuses more pressed listeners than a sample shows.
func keepListeners(l *model.Listeners) (*model.Listeners, error) {
	if l != nil && len(l.Pressed) > model.ListenersShown {
		return nil, fmt.Errorf("%w: %d listeners (at most %d)", ErrTooBig, len(l.Pressed), model.ListenersShown)
	}
	return boundListeners(l), nil
}

// keepWho refuses more probe flows than a sample shows.
func keepWho(w *model.Who) (*model.Who, error) {
	if w != nil && (len(w.Conns) > model.WhoShown || len(w.Drops) > model.WhoShown) {
		return nil, fmt.Errorf("%w: probe flows over %d", ErrTooBig, model.WhoShown)
	}
	return boundWho(w), nil
}

// bound cuts s to MaxString bytes on a rune boundary. It copies, so a
// kept string never pins the line it was decoded from.
func bound(s string) string {
	if len(s) <= MaxString {
		return s
	}
	cut := MaxString
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return string([]byte(s[:cut]))
}

// boundStrings copies the first n of ss, each bounded (nil for none).
func boundStrings(ss []string, n int) []string { return firstOf(ss, n, bound) }

// firstOf copies the first n of xs, each through bounded (nil for none):
// a stream's list cut to what a sample carries.
func firstOf[T, U any](xs []T, n int, bounded func(T) U) []U {
	var out []U
	for _, x := range xs[:min(len(xs), n)] {
		out = append(out, bounded(x))
	}
	return out
}

// eachOf copies every one of xs through bounded, an empty list for none
// (never nil): a list the stream's other checks have already cut.
func eachOf[T, U any](xs []T, bounded func(T) U) []U {
	out := make([]U, 0, len(xs))
	for _, x := range xs {
		out = append(out, bounded(x))
	}
	return out
}
