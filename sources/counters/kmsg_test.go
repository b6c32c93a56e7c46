package counters

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/sources/kernelfs"
)

// kmsgFile writes a kernel log of lines to a dev directory and returns its
// roots.
func kmsgFile(t *testing.T, lines []string) kernelfs.Roots {
	t.Helper()
	dev := t.TempDir()
	if err := os.WriteFile(filepath.Join(dev, "kmsg"), []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return kernelfs.Roots{Dev: dev, Proc: t.TempDir(), Run: t.TempDir()}
}

// TestKmsgBacklogCostsNoGarbage: a ring buffer of thousands of unrelated
// records is read without a string or a buffer per record (the always-on
// exporter's first poll read 700 kB of garbage on a busy host), and the
// lines we keep are still found among them.
func TestKmsgBacklogCostsNoGarbage(t *testing.T) {
	var lines []string
	for i := range 3000 {
		lines = append(lines, fmt.Sprintf("6,%d,%d,-;eth0: link state changed, record %d", i, 1000*i, i),
			" SUBSYSTEM=net")
	}
	lines = append(lines, "4,9000,9000000,-;nf_conntrack: nf_conntrack: table full, dropping packet",
		"4,9001,9000001,-;net_ratelimit: 17 callbacks suppressed")
	roots := kmsgFile(t, lines)
	now := time.Unix(1e9, 0)
	poll := func() (kept int, suppressed uint64) {
		k := NewKmsg(roots)
		k.Monotonic = func() time.Duration { return 10 * time.Second }
		defer k.Close()
		l := k.Poll(now)
		return len(l.Lines), l.Suppressed
	}
	if kept, suppressed := poll(); kept != 1 || suppressed != 17 {
		t.Fatalf("kept %d lines, %d suppressed; want 1 and 17", kept, suppressed)
	}
	if allocs := testing.AllocsPerRun(3, func() { poll() }); allocs > 100 {
		t.Errorf("a backlog of 6,002 lines cost %.0f allocations; want a handful, not one per record", allocs)
	}
}

// TestKmsgLineWithoutEndIsBounded: a record that never ends does not grow
// the buffer past maxPartial.
func TestKmsgLineWithoutEndIsBounded(t *testing.T) {
	dev := t.TempDir()
	if err := os.WriteFile(filepath.Join(dev, "kmsg"), []byte(strings.Repeat("x", 1<<20)), 0o600); err != nil {
		t.Fatal(err)
	}
	k := NewKmsg(kernelfs.Roots{Dev: dev, Proc: t.TempDir(), Run: t.TempDir()})
	defer k.Close()
	k.Poll(time.Unix(1e9, 0))
	if n := cap(k.partial); n > 2*maxPartial {
		t.Errorf("an endless line grew the buffer to %d bytes; want at most %d", n, 2*maxPartial)
	}
}

// TestKmsgForgedLinesNotCounted: only records the kernel logged with the
// whole text of the table's line count; a record that contains it (a
// path an unprivileged user chose, logged by overlayfs), one a process
// wrote (facility LOG_USER) and a suppressed count past an int do not.
func TestKmsgForgedLinesNotCounted(t *testing.T) {
	lines := []string{
		"4,1,1000,-;overlayfs: failed to resolve '/tmp/nf_conntrack: nf_conntrack: table full in netns 4026532177, dropping packet': -2",
		"12,2,2000,-;nf_conntrack: nf_conntrack: table full, dropping packet",
		"4,3,3000,-;overlayfs: failed to resolve '/tmp/x': net_ratelimit: 18446744073709551615 callbacks suppressed",
		"4,4,4000,-;net_ratelimit: 18446744073709551615 callbacks suppressed",
		"4,5,5000,-;nf_conntrack: table full, dropping packet",
		"4,6,6000,-;nf_conntrack: nf_conntrack: table full in netns 4026532177, dropping packet",
		"4,7,7000,-;net_ratelimit: 17 callbacks suppressed",
	}
	k := NewKmsg(kmsgFile(t, lines))
	k.Monotonic = func() time.Duration { return 10 * time.Second }
	defer k.Close()
	l := k.Poll(time.Unix(1e9, 0))
	if len(l.Lines) != 2 || l.Suppressed != 17 {
		t.Errorf("kept %d lines (%+v), %d suppressed: want the kernel's 2 and 17", len(l.Lines), l.Lines, l.Suppressed)
	}
}
