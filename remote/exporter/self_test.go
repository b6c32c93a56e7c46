package exporter

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
)

// exposition is the text exposition of what c serves.
func exposition(t *testing.T, c prometheus.Collector) string {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, f := range families {
		if _, err := expfmt.MetricFamilyToText(&b, f); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

// procStatLine is a /proc/PID/stat line: utime and stime in clock ticks
// (fields 14 and 15), the start in ticks after boot (22), the virtual
// size in bytes (23) and the resident pages (24).
func procStatLine(utime, stime, start, vsize, rssPages int) string {
	f := make([]string, 52)
	for i := range f {
		f[i] = "0"
	}
	f[0], f[1], f[2] = "4242", "(tablefull)", "S"
	f[13], f[14], f[21], f[22], f[23] = fmt.Sprint(utime), fmt.Sprint(stime), fmt.Sprint(start), fmt.Sprint(vsize), fmt.Sprint(rssPages)
	return strings.Join(f, " ") + "\n"
}

// TestSelfCollectorReadsOnlyWhatChanges: the process figures follow the
// stat line at each scrape; the start time, read once when the collector
// is made, is still served when the host's /proc/stat is gone (client_golang's
// collector re-read that file at every scrape for the boot time).
func TestSelfCollectorReadsOnlyWhatChanges(t *testing.T) {
	root := t.TempDir()
	write := func(rel, text string) {
		t.Helper()
		path := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("stat", "cpu  1 2 3 4\nbtime 1700000000\n")
	write("4242/stat", procStatLine(150, 50, 1000, 8<<20, 100))
	write("4242/fd/0", "")
	write("4242/fd/1", "")
	c := newSelfCollector(root, 4242)
	if err := os.Remove(filepath.Join(root, "stat")); err != nil {
		t.Fatal(err)
	}
	write("4242/stat", procStatLine(300, 100, 1000, 8<<20, 200))
	page := os.Getpagesize()
	want := fmt.Sprintf(`# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.
# TYPE process_cpu_seconds_total counter
process_cpu_seconds_total 4
# HELP process_open_fds Number of open file descriptors.
# TYPE process_open_fds gauge
process_open_fds 2
# HELP process_resident_memory_bytes Resident memory size in bytes.
# TYPE process_resident_memory_bytes gauge
process_resident_memory_bytes %d
# HELP process_start_time_seconds Start time of the process since unix epoch in seconds.
# TYPE process_start_time_seconds gauge
process_start_time_seconds 1.70000001e+09
# HELP process_virtual_memory_bytes Virtual memory size in bytes.
# TYPE process_virtual_memory_bytes gauge
process_virtual_memory_bytes 8.388608e+06
`, 200*page)
	got := exposition(t, c)
	var kept []string // the limits are this process's own: only their presence is checked
	for _, l := range strings.SplitAfter(got, "\n") {
		if !strings.Contains(l, "max_fds") && !strings.Contains(l, "memory_max_bytes") {
			kept = append(kept, l)
		}
	}
	if strings.Join(kept, "") != want {
		t.Errorf("served:\n%s\nwant:\n%s", got, want)
	}
	for _, name := range []string{"\nprocess_max_fds ", "\nprocess_virtual_memory_max_bytes "} {
		if !strings.Contains(got, name) {
			t.Errorf("no%s series in:\n%s", name, got)
		}
	}
}

// TestSelfCollectorServesNoStartItCannotRead: with no boot time to read
// when the collector is made, the start time is left out, not served as
// the epoch.
func TestSelfCollectorServesNoStartItCannotRead(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "7"), 0o755)
	os.WriteFile(filepath.Join(root, "7", "stat"), []byte(procStatLine(1, 1, 1, 1, 1)), 0o644)
	c := newSelfCollector(root, 7)
	got := exposition(t, c)
	if strings.Contains(got, "process_start_time_seconds") || !strings.Contains(got, "\nprocess_cpu_seconds_total 0.02\n") {
		t.Errorf("want the CPU time and no start time with no /proc/stat:\n%s", got)
	}
}

// TestSelfCollectorReadsAStrangeName: the fields are counted from after
// the command's last parenthesis, so a process named with spaces and
// parentheses is read like any other.
func TestSelfCollectorReadsAStrangeName(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "9"), 0o755)
	line := strings.Replace(procStatLine(250, 0, 1, 4096, 1), "(tablefull)", "(a) b (c) 1 2 3)", 1)
	os.WriteFile(filepath.Join(root, "9", "stat"), []byte(line), 0o644)
	got := exposition(t, newSelfCollector(root, 9))
	if !strings.Contains(got, "\nprocess_cpu_seconds_total 2.5\n") || !strings.Contains(got, "\nprocess_virtual_memory_bytes 4096\n") {
		t.Errorf("a name of spaces and parentheses misread:\n%s", got)
	}
}

// TestSelfCollectorOnThisProcess: on the real /proc, the descriptors
// counted are this process's, and the start time is within the test's
// run.
func TestSelfCollectorOnThisProcess(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	names, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	got := exposition(t, newSelfCollector("/proc", os.Getpid()))
	var fds, start float64
	for _, l := range strings.Split(got, "\n") {
		fmt.Sscanf(l, "process_open_fds %g", &fds)
		fmt.Sscanf(l, "process_start_time_seconds %g", &start)
	}
	if d := fds - float64(len(names)); d < -2 || d > 2 { // the listing's own descriptor, the collector's
		t.Errorf("%g open descriptors served, %d listed", fds, len(names))
	}
	if now := float64(time.Now().Unix()); start > now+1 || start < now-3600 {
		t.Errorf("start time %g, now %g", start, now)
	}
}
