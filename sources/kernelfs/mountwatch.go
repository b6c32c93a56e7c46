package kernelfs

import (
	"os"

	"golang.org/x/sys/unix"
)

// MountWatch says when a mount table has changed: a process's mountinfo,
// held open, polls POLLPRI once its mount namespace's table changed since
// the file was opened or last polled so (proc(5)). A host of a thousand
// ip netns mounts makes a mountinfo of a thousand lines, which the kernel
// writes out afresh for each read; with a watch it is read only when it
// changed.
//
// The file is opened with a raw open, not os.Open: Go registers a file
// os.Open opens with its poller's epoll, and epoll's own poll of the file
// would take each change before ours does. (os.NewFile of a blocking
// descriptor does not register it, and closes it when it is collected.)
type MountWatch struct {
	f *os.File
}

// WatchMounts watches the mount table at path (a /proc/PID/mountinfo).
// Open it before reading the table, so a change made during that read is
// reported. nil when path is not procfs's (a fixture): the caller reads
// the table on a clock instead.
func WatchMounts(path string) *MountWatch {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	var st unix.Statfs_t
	if unix.Fstatfs(fd, &st) != nil || st.Type != unix.PROC_SUPER_MAGIC {
		unix.Close(fd)
		return nil
	}
	return &MountWatch{f: os.NewFile(uintptr(fd), path)}
}

// Changed reports whether the table changed since the watch began or since
// Changed last said so. It does not wait; a poll that fails says changed.
func (w *MountWatch) Changed() bool {
	fds := []unix.PollFd{{Fd: int32(w.f.Fd()), Events: unix.POLLPRI}}
	n, err := unix.Poll(fds, 0)
	if err != nil {
		return true
	}
	return n > 0 && fds[0].Revents&(unix.POLLPRI|unix.POLLERR) != 0
}

// Close ends the watch.
func (w *MountWatch) Close() { w.f.Close() }
