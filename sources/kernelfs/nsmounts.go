package kernelfs

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"strconv"
	"strings"
)

// MaxMountinfo bounds the mount table read for namespaces' bind mounts
// (a Kubernetes node has thousands of mounts: a few MB).
const MaxMountinfo = 32 << 20

// maxNetnsMounts bounds the namespaces found in one mount table.
const maxNetnsMounts = 4096

// NSMount is a network namespace kept alive by a bind mount: ip netns's
// /run/netns/NAME, Docker's /run/docker/netns/ID, a CNI plugin's
// /var/run/netns/cni-UUID, podman's /run/user/UID/netns/NAME.
type NSMount struct {
	// Path is the mount point; Name is its last element.
	Path, Name string
}

// NetnsMounts finds every network namespace bind-mounted anywhere in the
// mount table at path (a /proc/PID/mountinfo), by inode: a mount of
// filesystem type nsfs whose root is net:[INODE]. The first mount of a
// namespace names it. A table that cannot be read finds none.
func NetnsMounts(path string) map[uint64]NSMount {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	out := map[uint64]NSMount{}
	sc := bufio.NewScanner(io.LimitReader(f, MaxMountinfo))
	sc.Buffer(make([]byte, 0, 4096), 64<<10) // a longer line is skipped with the rest
	for sc.Scan() {
		ino, mountPoint, ok := parseNSFSMount(sc.Bytes())
		if !ok || len(out) >= maxNetnsMounts {
			continue
		}
		if _, seen := out[ino]; !seen {
			out[ino] = NSMount{Path: mountPoint, Name: mountPoint[strings.LastIndexByte(mountPoint, '/')+1:]}
		}
	}
	return out
}

// parseNSFSMount reads one mountinfo line (proc(5)): ID PARENT MAJ:MIN
// ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTIONS,
// and returns the namespace inode and mount point of an nsfs mount of a
// network namespace.
func parseNSFSMount(line []byte) (uint64, string, bool) {
	fields := bytes.Fields(line)
	sep := -1
	for i := 6; i < len(fields); i++ {
		if string(fields[i]) == "-" {
			sep = i
			break
		}
	}
	if len(fields) < 5 || sep < 0 || sep+1 >= len(fields) || string(fields[sep+1]) != "nsfs" {
		return 0, "", false
	}
	s, ok := strings.CutPrefix(string(fields[3]), "net:[")
	if !ok {
		return 0, "", false
	}
	ino, err := strconv.ParseUint(strings.TrimSuffix(s, "]"), 10, 64)
	if err != nil {
		return 0, "", false
	}
	return ino, UnescapeMount(string(fields[4])), true
}

// UnescapeMount undoes mountinfo's octal escapes (\040 a space, \011 a
// tab, \012 a newline, \134 a backslash).
func UnescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
