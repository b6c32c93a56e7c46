package owners

import (
	"path/filepath"
	"strconv"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/sources/kernelfs"
)

// NetnsName names network namespace ino, found through process pid (0:
// no process, only a bind mount), by model.NamespaceName: the pod or
// container of the process's cgroup, else the namespace's bind mount
// (mounts, from kernelfs.NetnsMounts), else its inode.
func NetnsName(proc string, pid int, ino uint64, mounts map[uint64]kernelfs.NSMount) (name, kind string) {
	var group, groupKind string
	if pid > 0 {
		if b, err := kernelfs.ReadBounded(filepath.Join(proc, strconv.Itoa(pid), "cgroup"), 64<<10); err == nil {
			group, groupKind = CgroupOwner(string(b))
		}
	}
	return model.NamespaceName(group, groupKind, mounts[ino].Name, ino)
}
