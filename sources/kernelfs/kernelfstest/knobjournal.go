package kernelfstest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// KnobJournal is where a test process that changes a global knob keeps
// the value from before, until it has written it back: a run killed
// before its cleanups leaves the file, and the next run's first kernel
// test (Need) writes the value back, so no test, and no CI run on the
// same machine, starts on a cap a dead run lowered. Its format (the
// knob's path, the value, the process's pid and start time, a line each)
// is read by .ci/run's exit trap too.
const KnobJournal = "/run/tablefull-tests/knobs"

// JournalKnob records, in dir, that this process is changing the knob at
// path, whose value was before.
func JournalKnob(dir, path, before string) error {
	return JournalKnobFor(dir, path, before, ProcessKey(os.Getpid()))
}

// JournalKnobFor records, in dir, that the process owner (a ProcessKey)
// is changing the knob at path, whose value was before: when tests of
// several processes set it, the journal names one that still runs.
func JournalKnobFor(dir, path, before, owner string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("knob journal: %w", err)
	}
	text := path + "\n" + before + "\n" + owner + "\n"
	if err := os.WriteFile(journalEntry(dir, path), []byte(text), 0o600); err != nil {
		return fmt.Errorf("knob journal: %w", err)
	}
	return nil
}

// ForgetKnob removes path's record from dir once its value is back.
func ForgetKnob(dir, path string) error {
	if err := os.Remove(journalEntry(dir, path)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("knob journal: %w", err)
	}
	return nil
}

// RestoreAbandonedKnobs writes back every knob recorded in dir by a
// process that is gone, and removes its record. A record is checked
// before it is believed: it names one of conntrack's knobs (knobRoots,
// or a file under allowedRoot, for tests) and a number.
func RestoreAbandonedKnobs(dir, allowedRoot string) error {
	files, err := filepath.Glob(filepath.Join(dir, "*.knob"))
	if err != nil {
		return err
	}
	var errs []error
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		if len(lines) != 3 || !knobPath(lines[0], allowedRoot) || !isNumber(lines[1]) {
			errs = append(errs, fmt.Errorf("knob journal %s: not a record this suite writes", f))
			continue
		}
		if Alive(lines[2]) {
			continue // its process runs: it restores the knob itself
		}
		if err := os.WriteFile(lines[0], []byte(lines[1]), 0o644); err != nil {
			errs = append(errs, fmt.Errorf("restore %s to %s: %w", lines[0], lines[1], err))
			continue
		}
		errs = append(errs, os.Remove(f))
	}
	return errors.Join(errs...)
}

// journalEntry is the file that records the knob at path.
func journalEntry(dir, path string) string {
	return filepath.Join(dir, strings.ReplaceAll(strings.Trim(path, "/"), "/", "_")+".knob")
}

// ProcessKey names process pid as the journal and the tests' gate record
// it: its pid and start time, which a pid reused later does not share.
func ProcessKey(pid int) string {
	p := strconv.Itoa(pid)
	return p + " " + startTime(p)
}

// Alive says whether the process key (ProcessKey) names still runs.
func Alive(key string) bool {
	f := strings.Fields(key)
	return len(f) == 2 && startTime(f[0]) == f[1]
}

// startTime is process pid's start time in clock ticks since boot (field
// 22 of its stat), "" when it is gone: a pid reused since reads another.
func startTime(pid string) string {
	b, err := os.ReadFile(filepath.Join("/proc", pid, "stat"))
	if err != nil {
		return ""
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]) // the name may hold spaces
	if len(fields) < 20 {
		return ""
	}
	return fields[19]
}

// knobRoots are where the knobs the tests change live: the conntrack
// sysctls and the module's parameters (the hashsize). .ci/run's exit
// trap accepts the same two.
var knobRoots = []string{"/proc/sys/net/netfilter/", "/sys/module/nf_conntrack/parameters/"}

// KnobRecord says whether a record of the knob at path, whose value
// from before is value, is one this suite writes: one of conntrack's
// knobs (or a file under allowedRoot, for tests) and a number. What the
// tests write back is checked as the journal is, wherever it is kept.
func KnobRecord(path, value, allowedRoot string) bool {
	return knobPath(path, allowedRoot) && isNumber(value)
}

// knobPath says whether path is a knob a test may write back.
func knobPath(path, allowedRoot string) bool {
	if filepath.Clean(path) != path { // no "..", no doubled slashes
		return false
	}
	for _, root := range append(knobRoots, allowedRoot) {
		if root != "" && strings.HasPrefix(path, root) {
			return true
		}
	}
	return false
}

// isNumber says whether s is a knob's value as the tests write one.
func isNumber(s string) bool {
	_, err := strconv.ParseUint(s, 10, 64)
	return err == nil
}
