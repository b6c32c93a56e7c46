package counters

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestDiskListing: the disk list is reused between reads, a new disk
// shows within relistEvery reads, and a disk that disappears is gone
// within as many. (On sysfs its open file fails at once:
// TestDiskGoneFailsAtOnce. A fixture's file, deleted, stays readable.)
func TestDiskListing(t *testing.T) {
	proc, sys := t.TempDir(), t.TempDir()
	addDisk := func(name string) {
		dir := filepath.Join(sys, "block", name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		stat := "5 0 10 0 7 0 14 0 0 3 0 0 0 0 0 0 0\n"
		if err := os.WriteFile(filepath.Join(dir, "stat"), []byte(stat), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	names := func(d *Disk) []string {
		t.Helper()
		got, err := d.Read()
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, g := range got {
			out = append(out, g.Name)
		}
		return out
	}
	addDisk("vda")
	addDisk("loop0")
	d, err := NewDisk(proc, sys)
	if err != nil {
		t.Fatal(err)
	}
	if got := names(d); !slices.Equal(got, []string{"vda"}) {
		t.Fatalf("disks %v, want [vda] (loop devices skipped)", got)
	}
	addDisk("vdb")
	seen := 0
	for i := range relistEvery {
		if slices.Contains(names(d), "vdb") {
			seen = i + 1
			break
		}
	}
	if seen == 0 {
		t.Fatalf("a new disk did not show within %d reads", relistEvery)
	}
	if seen == 1 {
		t.Errorf("the new disk showed on the very next read: the listing is not reused")
	}
	if err := os.RemoveAll(filepath.Join(sys, "block", "vda")); err != nil {
		t.Fatal(err)
	}
	for range relistEvery {
		d.Read()
	}
	if got := names(d); !slices.Equal(got, []string{"vdb"}) {
		t.Errorf("after removal disks %v, want [vdb]", got)
	}
}

// TestDiskGoneFailsAtOnce: a disk removed from the kernel fails its next
// read though its stat file is kept open (sysfs answers ENODEV), so the
// listing is read again at once. A zram device is added and removed
// through /sys/class/zram-control for it.
func TestDiskGoneFailsAtOnce(t *testing.T) {
	const control = "/sys/class/zram-control"
	b, err := os.ReadFile(filepath.Join(control, "hot_add"))
	if err != nil {
		t.Skipf("needs root and zram's hot_add: %v", err)
	}
	n := strings.TrimSpace(string(b))
	removed := false
	remove := func() error {
		removed = true
		return os.WriteFile(filepath.Join(control, "hot_remove"), []byte(n), 0o200)
	}
	t.Cleanup(func() {
		if !removed {
			remove()
		}
	})
	d, err := NewDisk("/proc", "/sys")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, err := d.read("zram" + n); err != nil {
		t.Fatalf("read zram%s: %v", n, err)
	}
	if err := remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := d.read("zram" + n); err == nil {
		t.Errorf("zram%s, removed, still read", n)
	}
}
