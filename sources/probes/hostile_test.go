package probes

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/sources/owners"
)

// TestResolveWalksOnceForUnknownGroups: ids whose group is gone (a
// scope that sent its datagrams and exited) cost one walk of the
// hierarchy between them, then none: a later Read does not walk for
// them again, even when a directory with that id appears.
func TestResolveWalksOnceForUnknownGroups(t *testing.T) {
	dir := t.TempDir()
	unit := filepath.Join(dir, "system.slice", "web.service")
	if err := os.MkdirAll(unit, 0o755); err != nil {
		t.Fatal(err)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(unit, &st); err != nil {
		t.Fatal(err)
	}
	w := &Programs{roots: owners.Trees{Cgroup2: dir}, groups: map[uint64]model.Owner{}, unknown: map[uint64]struct{}{}}
	gone := make([]uint64, 4096)
	for i := range gone {
		gone[i] = 1<<40 + uint64(i)
	}
	if walked := w.resolve(append(gone, st.Ino)); walked != len(gone)+1 {
		t.Errorf("one walk for %d ids, want %d", walked, len(gone)+1)
	}
	if o := w.owner(st.Ino, 0, ""); o.Group != "web.service" || o.Kind != "unit" {
		t.Errorf("the live group: %+v", o)
	}
	if len(w.unknown) != len(gone) {
		t.Fatalf("%d ids remembered as unknown, want %d", len(w.unknown), len(gone))
	}
	if walked := w.resolve(append(gone, st.Ino)); walked != 0 {
		t.Errorf("the next read walked again for %d ids", walked)
	}
	for _, id := range gone[:3] {
		if o := w.owner(id, 0, ""); o.Kind != "" {
			t.Errorf("an unknown id named after all: %+v", o)
		}
	}
	if len(w.groups) != 1 {
		t.Errorf("groups %v", w.groups)
	}
}
