package sources

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
)

// TestNetnsNameByTime: a line is named after a namespace only when it is
// newer than that namespace; an older line on the same inode is "(gone)";
// a name that was removed is not used.
func TestNetnsNameByTime(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "h4")
	os.WriteFile(path, nil, 0o644)
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		t.Fatal(err)
	}
	born := time.Unix(st.Ctim.Sec, st.Ctim.Nsec)
	k := &Kmsg{netnsDir: dir}
	if got := k.netnsName(st.Ino, born.Add(-time.Minute)); got != model.NetNSGone {
		t.Errorf("a line from before the namespace: %q, want %q", got, model.NetNSGone)
	}
	if got := k.netnsName(st.Ino, born.Add(time.Second)); got != "h4" {
		t.Errorf("a line from after: %q, want h4", got)
	}
	if got := k.netnsName(st.Ino+99991, born.Add(time.Second)); got != "" {
		t.Errorf("an unnamed inode: %q", got)
	}
	os.Remove(path)
	if got := k.netnsName(st.Ino, born.Add(time.Second)); got == "h4" {
		t.Errorf("a removed name is still used")
	}
}
