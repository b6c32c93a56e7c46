package counters

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestDiskListing: the disk list is reused between reads, a new disk
// shows within relistEvery reads, and a disk that disappears fails one
// read and is gone from the next.
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
	if _, err := d.Read(); err == nil {
		t.Errorf("a removed disk's read did not fail")
	}
	if got := names(d); !slices.Equal(got, []string{"vdb"}) {
		t.Errorf("after removal disks %v, want [vdb]", got)
	}
}
