package owners

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/tablefull/tablefull/sources/kernelfs"
)

// Bounds of what the owners' attribution reads of cgroups and processes:
// a 500-pod node has a few thousand cgroups; a cgroup listing more
// processes than maxCgroupProcs is read that far.
// maxLookupFDs bounds the file descriptors one lookup reads across all
// the processes it scans (~3 µs a readlink here: ~0.2 s at most), however
// the processes multiply their fd tables.
const (
	MaxCgroupDirs  = 1 << 16
	maxCgroupProcs = 4096
	maxProcFDs     = 1 << 16
	maxLookupFDs   = 1 << 16
)

// Cgroup2Mount finds where the cgroup v2 hierarchy is mounted, from the
// mount table at mountinfo: /sys/fs/cgroup on a unified host,
// /sys/fs/cgroup/unified on a hybrid one; "" when none is.
func Cgroup2Mount(mountinfo string) string {
	f, err := os.Open(mountinfo)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, kernelfs.MaxMountinfo))
	sc.Buffer(make([]byte, 0, 4096), 64<<10)
	for sc.Scan() {
		fields := bytes.Fields(sc.Bytes())
		for i := 6; i+1 < len(fields); i++ {
			if string(fields[i]) == "-" {
				if string(fields[i+1]) == "cgroup2" && len(fields) > 4 {
					return kernelfs.UnescapeMount(string(fields[4]))
				}
				break
			}
		}
	}
	return ""
}

// CgroupPaths finds the directories of cgroup ids under the v2 mount: a
// cgroup's id is its directory's inode. It walks the tree until every id
// asked for is found or MaxCgroupDirs were visited.
func CgroupPaths(mount string, want map[uint64]string) {
	missing := 0
	for _, p := range want {
		if p == "" {
			missing++
		}
	}
	if mount == "" || missing == 0 {
		return
	}
	visited := 0
	stop := errors.New("enough")
	filepath.WalkDir(mount, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if visited++; visited > MaxCgroupDirs {
			return stop
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		st, ok := info.Sys().(*syscall.Stat_t)
		if !ok {
			return nil
		}
		if p, asked := want[st.Ino]; asked && p == "" {
			rel := strings.TrimPrefix(path, mount)
			if rel == "" {
				rel = "/"
			}
			want[st.Ino] = rel
			if missing--; missing == 0 {
				return stop
			}
		}
		return nil
	})
}

// cgroupProcs lists the processes of the cgroup at dir (a path under the
// v2 mount), at most maxCgroupProcs.
func cgroupProcs(dir string) []int {
	f, err := os.Open(filepath.Join(dir, "cgroup.procs"))
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []int
	sc := bufio.NewScanner(f)
	for sc.Scan() && len(out) < maxCgroupProcs {
		if pid, err := strconv.Atoi(sc.Text()); err == nil && pid > 0 {
			out = append(out, pid)
		}
	}
	return out
}

// socketInodes calls each for every socket pid holds open (the inode of
// each /proc/PID/fd link that reads "socket:[N]"), at most maxProcFDs;
// the error is why its fds could not be listed.
func socketInodes(procRoot string, pid int, budget *int, each func(inode uint32)) error {
	dir := filepath.Join(procRoot, strconv.Itoa(pid), "fd")
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	names, _ := d.Readdirnames(min(maxProcFDs, max(0, *budget)))
	for _, n := range names {
		if *budget <= 0 {
			return nil
		}
		*budget--
		link, err := os.Readlink(filepath.Join(dir, n))
		if err != nil {
			continue
		}
		s, ok := strings.CutPrefix(link, "socket:[")
		if !ok {
			continue
		}
		if ino, err := strconv.ParseUint(strings.TrimSuffix(s, "]"), 10, 32); err == nil {
			each(uint32(ino))
		}
	}
	return nil
}

// commOf is a process's name, "" when it is gone.
func commOf(procRoot string, pid int) string {
	b, err := kernelfs.ReadBounded(filepath.Join(procRoot, strconv.Itoa(pid), "comm"), 64)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
