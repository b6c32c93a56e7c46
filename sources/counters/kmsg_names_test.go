package counters

import (
	"fmt"
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

// TestNetnsNamedByMount: a namespace bind-mounted outside /run/netns (a
// CNI's, Docker's) is named after its mount in the mount table, as the
// namespaces panel names it.
func TestNetnsNamedByMount(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cni-5e0b2c1a")
	os.WriteFile(path, nil, 0o644)
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		t.Fatal(err)
	}
	mountinfo := filepath.Join(dir, "mountinfo")
	os.WriteFile(mountinfo, []byte(fmt.Sprintf("183 26 0:4 net:[%d] %s rw - nsfs nsfs rw\n", st.Ino, path)), 0o644)
	k := &Kmsg{mountinfo: mountinfo, netnsDir: filepath.Join(dir, "absent")}
	if got := k.netnsName(st.Ino, time.Unix(st.Ctim.Sec, st.Ctim.Nsec).Add(time.Second)); got != "cni-5e0b2c1a" {
		t.Errorf("a line of a CNI's namespace is named %q, want its mount's name", got)
	}
}
