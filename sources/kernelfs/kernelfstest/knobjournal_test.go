package kernelfstest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestRestoreAbandonedKnobs: a knob recorded by a process that is gone
// reads its value from before again and its record goes; one recorded by
// a process that runs is left to it; a record this suite could not have
// written (a path outside the knobs, a value not a number) is refused and
// writes nothing.
func TestRestoreAbandonedKnobs(t *testing.T) {
	journal, knobs := t.TempDir(), t.TempDir()+"/"
	knob := func(name, value string) string {
		path := filepath.Join(knobs, name)
		if err := os.WriteFile(path, []byte(value), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	read := func(path string) string { b, _ := os.ReadFile(path); return string(b) }
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	abandoned, ours := knob("max", "64"), knob("buckets", "64")
	record := func(path, before, owner string) {
		text := path + "\n" + before + "\n" + owner + "\n"
		if err := os.WriteFile(journalEntry(journal, path), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	record(abandoned, "262144", strconv.Itoa(dead.Process.Pid)+" "+startTime("self"))
	if err := JournalKnob(journal, ours, "262144"); err != nil {
		t.Fatal(err)
	}
	if err := RestoreAbandonedKnobs(journal, knobs); err != nil {
		t.Fatal(err)
	}
	if got := read(abandoned); got != "262144" {
		t.Errorf("the knob a gone process lowered reads %s, want 262144", got)
	}
	if _, err := os.Stat(journalEntry(journal, abandoned)); err == nil {
		t.Error("the restored knob's record is still there")
	}
	if got := read(ours); got != "64" {
		t.Errorf("the knob a running process set reads %s, want its 64 kept", got)
	}

	// The hostile records name files this test made, outside the knobs
	// (a system file's stand-in, and one reached by ".."): were the check
	// broken, the test would write them, never the machine's files. The
	// sysctl outside conntrack's is recorded with the value it has, so
	// even a broken check writes it as it was.
	outside := t.TempDir()
	victim := filepath.Join(outside, "passwd")
	os.WriteFile(victim, []byte("root:x:0:0\n"), 0o644)
	escaped := filepath.Join(filepath.Dir(filepath.Clean(knobs)), "x")
	os.WriteFile(escaped, []byte("kept\n"), 0o644)
	panicNow := strings.TrimSpace(read("/proc/sys/kernel/panic"))
	if panicNow == "" {
		panicNow = "0"
	}
	hostile := map[string]string{victim: "0", "/proc/sys/kernel/panic": panicNow, knob("words", "1"): "1; reboot", knobs + "../x": "1"}
	for path, before := range hostile {
		record(path, before, "1 0")
	}
	err := RestoreAbandonedKnobs(journal, knobs)
	if err == nil || strings.Count(err.Error(), "not a record this suite writes") != len(hostile) {
		t.Errorf("hostile records: %v, want each refused", err)
	}
	if got := read(filepath.Join(knobs, "words")); got != "1" {
		t.Errorf("a record with words for a value wrote %q", got)
	}
	if got := read(victim); got != "root:x:0:0\n" {
		t.Errorf("a record outside the knobs wrote %q", got)
	}
	if got := read(escaped); got != "kept\n" {
		t.Errorf("a record reaching out by .. wrote %q", got)
	}
}
