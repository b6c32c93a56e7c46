package clitest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tablefull/tablefull/sources/netns/nstest"
)

// UnitCgroup makes a cgroup shaped as a systemd unit's, removed when
// the test ends.
func UnitCgroup(t *testing.T, name string) *os.File {
	return CgroupAt(t, filepath.Join("system.slice", name))
}

// CgroupAt makes the cgroup rel under the cgroup v2 hierarchy, open for
// starting processes in it, removed when the test ends (nstest.Cgroup).
func CgroupAt(t *testing.T, rel string) *os.File { return nstest.Cgroup(t, rel) }
