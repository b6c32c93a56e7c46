package sources

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/tablefull/tablefull/model"
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
	w := &WhoProbes{roots: ownerRoots{cgroup2: dir}, groups: map[uint64]model.Owner{}, unknown: map[uint64]struct{}{}}
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

// TestOwnerLookupBudget: processes whose fd tables a user multiplied
// (here three of 600 fds each, the wanted socket in the last, against a
// budget of 1,000) cost at most the budget's readlinks in all; the
// lookup says it ran out instead of reading on.
func TestOwnerLookupBudget(t *testing.T) {
	proc := t.TempDir()
	for pid := 1; pid <= 3; pid++ {
		fd := filepath.Join(proc, strconv.Itoa(pid), "fd")
		if err := os.MkdirAll(fd, 0o755); err != nil {
			t.Fatal(err)
		}
		for i := range 600 {
			if err := os.Symlink(fmt.Sprintf("socket:[%d]", pid*100000+i), filepath.Join(fd, strconv.Itoa(i))); err != nil {
				t.Fatal(err)
			}
		}
	}
	wanted := map[uint32]int{3*100000 + 599: 0}
	denied, over := findProcesses(ownerRoots{proc: proc}, false, nil, wanted, 1000)
	if denied || !over || wanted[3*100000+599] != 0 {
		t.Errorf("denied %v, over %v, found %v: want the budget to run out first", denied, over, wanted)
	}
	near := map[uint32]int{1*100000 + 5: 0}
	if _, over := findProcesses(ownerRoots{proc: proc}, false, nil, near, 1000); over || near[100005] != 1 {
		t.Errorf("a socket within the budget: over %v, found %v", over, near)
	}
}
