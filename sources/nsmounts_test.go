package sources

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// mountinfoText holds ip netns's, Docker's, a CNI plugin's and a
// space-escaped bind mount of network namespaces, a mount namespace's
// (not a network one), and ordinary mounts.
const mountinfoText = `22 28 0:21 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw
28 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw
180 26 0:4 net:[4026532300] /run/netns/web-7 rw shared:80 - nsfs nsfs rw
181 26 0:4 net:[4026532300] /run/netns/web-7-again rw shared:80 - nsfs nsfs rw
182 26 0:4 net:[4026532301] /run/docker/netns/1a2b3c4d5e6f rw - nsfs nsfs rw
183 26 0:4 net:[4026532302] /var/run/netns/cni-5e0b2c1a-77d4 rw shared:81 master:2 - nsfs nsfs rw
184 26 0:4 net:[4026532303] /run/netns/with\040space rw - nsfs nsfs rw
185 26 0:4 mnt:[4026532304] /run/mntns/x rw - nsfs nsfs rw
186 26 0:4 net:[notanumber] /run/netns/bad rw - nsfs nsfs rw
187 26 0:50 / /run/netns rw - tmpfs tmpfs rw
`

func TestNetnsMounts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mountinfo")
	os.WriteFile(path, []byte(mountinfoText), 0o644)
	got := netnsMounts(path)
	want := map[uint64]nsMount{
		4026532300: {"/run/netns/web-7", "web-7"},
		4026532301: {"/run/docker/netns/1a2b3c4d5e6f", "1a2b3c4d5e6f"},
		4026532302: {"/var/run/netns/cni-5e0b2c1a-77d4", "cni-5e0b2c1a-77d4"},
		4026532303: {"/run/netns/with space", "with space"},
	}
	if len(got) != len(want) {
		t.Fatalf("netnsMounts = %+v, want %+v", got, want)
	}
	for ino, m := range want {
		if got[ino] != m {
			t.Errorf("inode %d: %+v, want %+v", ino, got[ino], m)
		}
	}
	if m := netnsMounts(filepath.Join(t.TempDir(), "absent")); len(m) != 0 {
		t.Errorf("an absent mount table found %+v", m)
	}
}

// TestNamespaceNamedByItsMount: a process's namespace that is also bind
// mounted (by ip netns or a CNI plugin) is named after the mount, ahead of
// its cgroup and command.
func TestNamespaceNamedByItsMount(t *testing.T) {
	root := t.TempDir()
	proc := filepath.Join(root, "proc")
	fakeNSProcess(proc, "100", "4026532302", "pause")
	os.MkdirAll(filepath.Join(proc, "self"), 0o755)
	os.WriteFile(filepath.Join(proc, "self", "mountinfo"), []byte(mountinfoText), 0o644)
	n := NewNamespaces(Roots{Proc: proc})
	rows := n.Read(time.Unix(100, 0), 262144).Rows
	if len(rows) != 1 || rows[0].Name != "cni-5e0b2c1a-77d4" || rows[0].Kind != "netns" || rows[0].PID != 100 {
		t.Errorf("rows %+v: want the process's namespace named by its CNI mount", rows)
	}
}
