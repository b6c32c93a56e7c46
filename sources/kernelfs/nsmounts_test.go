package kernelfs

import (
	"path/filepath"
	"testing"
)

// mountinfoFixture holds ip netns's, Docker's, a CNI plugin's and a
// space-escaped bind mount of network namespaces, a mount namespace's
// (not a network one), and ordinary mounts.
const mountinfoFixture = "../testdata/mountinfo/netns-mounts"

func TestNetnsMounts(t *testing.T) {
	got := NetnsMounts(mountinfoFixture)
	want := map[uint64]NSMount{
		4026532300: {"/run/netns/web-7", "web-7"},
		4026532301: {"/run/docker/netns/1a2b3c4d5e6f", "1a2b3c4d5e6f"},
		4026532302: {"/var/run/netns/cni-5e0b2c1a-77d4", "cni-5e0b2c1a-77d4"},
		4026532303: {"/run/netns/with space", "with space"},
	}
	if len(got) != len(want) {
		t.Fatalf("NetnsMounts = %+v, want %+v", got, want)
	}
	for ino, m := range want {
		if got[ino] != m {
			t.Errorf("inode %d: %+v, want %+v", ino, got[ino], m)
		}
	}
	if m := NetnsMounts(filepath.Join(t.TempDir(), "absent")); len(m) != 0 {
		t.Errorf("an absent mount table found %+v", m)
	}
}
