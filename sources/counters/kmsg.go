package counters

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/sources/kernelfs"
)

// maxRecordsPerPoll bounds one poll: /dev/kmsg returns one record per
// read, and a ring buffer full of "table full" lines must not delay the
// first frame; the backlog arrives over the next few samples.
const maxRecordsPerPoll = 1000

// maxPartial bounds a line still waiting for its end: a kernel record is
// at most a few kB, so more than this never ends and is dropped.
const maxPartial = 64 << 10

// The kernel's records, recognised by their whole text: a record that
// only contains such words (an overlayfs mount in a user namespace logs
// the lowerdir an unprivileged user chose) is not one. The table's line
// is nf_conntrack's net_warn_ratelimited (pr_fmt "nf_conntrack: " once on
// older kernels, twice on newer); the suppressed count is the rate
// limiter's "%s: %d callbacks suppressed", an int.
var (
	tableFullRe  = regexp.MustCompile(`^(?:nf_conntrack: ){1,2}table full(?: in netns (\d{1,20}))?, dropping packet\s*$`)
	suppressedRe = regexp.MustCompile(`^[A-Za-z0-9_.]{1,64}: (\d{1,10}) callbacks suppressed\s*$`)
)

// maxSuppressed is the most a suppressed count can be: the kernel prints
// an int.
const maxSuppressed = 1<<31 - 1

// Kmsg follows the kernel log (/dev/kmsg) for the conntrack "table full"
// lines and the "callbacks suppressed" counts of their rate limiter. The
// first Poll returns what is still in the kernel's ring buffer. Reading
// needs root where kernel.dmesg_restrict=1.
type Kmsg struct {
	path    string
	fd      int
	opened  bool
	note    string
	partial []byte
	buf     []byte // one record's read
	// Monotonic returns time since boot; kernel records carry it (a test
	// fixes it).
	Monotonic func() time.Duration
	// mountinfo is the mount table whose nsfs bind mounts name the inode
	// a "table full in netns N" line gives (ip netns's, Docker's, a
	// CNI's: the namespaces panel's names); netnsDir (ip netns) is read
	// too, for a table that cannot be.
	mountinfo, netnsDir string
	names               map[uint64]netnsEntry
	// reloaded is when netnsDir was last read for an unknown inode.
	reloaded time.Time
	// More is set when the last poll stopped at maxRecordsPerPoll with
	// records still waiting.
	More bool
}

// NewKmsg reads roots.Dev/kmsg (normally /dev/kmsg) and names namespaces
// by their bind mounts in roots.Proc/self/mountinfo and roots.Run/netns.
func NewKmsg(roots kernelfs.Roots) *Kmsg {
	return &Kmsg{path: filepath.Join(roots.Dev, "kmsg"), fd: -1, Monotonic: monotonicNow,
		mountinfo: filepath.Join(roots.Proc, "self", "mountinfo"), netnsDir: filepath.Join(roots.Run, "netns")}
}

func monotonicNow() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

// Poll reads every record available now without blocking.
func (k *Kmsg) Poll(now time.Time) model.KernelLog {
	if !k.opened {
		k.open()
	}
	if k.fd < 0 {
		return model.KernelLog{Readable: false, Note: k.note}
	}
	out := model.KernelLog{Readable: true}
	if k.buf == nil {
		k.buf = make([]byte, 8192)
	}
	k.More = true
	for range maxRecordsPerPoll { // bounded: the rest is picked up by the next poll
		n, err := kernelfs.ReadRaw(k.fd, k.buf)
		if errors.Is(err, syscall.EPIPE) { // records overwritten before we read them
			continue
		}
		if err != nil || n <= 0 {
			k.More = false
			break
		}
		if len(k.partial) > maxPartial { // no record is this long: drop what never ended
			k.partial = k.partial[:0]
		}
		k.partial = append(k.partial, k.buf[:n]...)
		k.consume(now, &out)
	}
	return out
}

func (k *Kmsg) open() {
	k.opened = true
	fd, err := syscall.Open(k.path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	switch {
	case errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM):
		k.note = "needs root to read /dev/kmsg (kernel.dmesg_restrict)"
	case err != nil:
		k.note = fmt.Sprintf("kernel log unavailable: %v", err)
	default:
		k.fd = fd
	}
}

// consume parses the complete lines buffered so far and moves what is left
// of a line to the buffer's start: a backlog of thousands of records
// reuses one buffer, and a record is made a string only when it is one we
// keep (a ring buffer of unrelated lines costs no garbage).
func (k *Kmsg) consume(now time.Time, out *model.KernelLog) {
	rest := k.partial
	for {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			break
		}
		line := rest[:i]
		rest = rest[i+1:]
		if bytes.HasPrefix(line, []byte(" ")) { // continuation: KEY=value dictionary
			continue
		}
		k.parseRecord(now, line, out)
	}
	k.partial = k.partial[:copy(k.partial, rest)]
}

var (
	suppressedMark = []byte("callbacks suppressed")
	tableFullMark  = []byte("table full")
)

// parseRecord handles "prio,seq,usec,flags;text".
func (k *Kmsg) parseRecord(now time.Time, line []byte, out *model.KernelLog) {
	head, body, ok := bytes.Cut(line, []byte(";"))
	if !ok || !fromKernel(head) {
		return
	}
	if bytes.Contains(body, suppressedMark) {
		if m := suppressedRe.FindSubmatch(body); m != nil {
			if n, err := strconv.ParseUint(string(m[1]), 10, 64); err == nil && n <= maxSuppressed {
				out.Suppressed += n
			}
			return
		}
	}
	if !bytes.Contains(body, tableFullMark) {
		return
	}
	text := string(body)
	m := tableFullRe.FindStringSubmatch(text)
	if m == nil {
		return
	}
	kl := model.KernelLine{Text: text, Time: now}
	if f := strings.Split(string(head), ","); len(f) >= 3 {
		if usec, err := strconv.ParseInt(f[2], 10, 64); err == nil {
			kl.Time = now.Add(time.Duration(usec)*time.Microsecond - k.Monotonic()).Truncate(time.Millisecond)
		}
	}
	if m[1] != "" {
		kl.NetNS, _ = strconv.ParseUint(m[1], 10, 64)
		kl.NetNSName = k.netnsName(kl.NetNS, kl.Time)
	}
	out.Lines = append(out.Lines, kl)
}

// fromKernel reports whether a record's header ("prio,seq,usec,flags")
// says the kernel logged it: facility 0 (a process writing /dev/kmsg gets
// LOG_USER, 1, unless it names another).
func fromKernel(head []byte) bool {
	prio, _, ok := bytes.Cut(head, []byte(","))
	if !ok || len(prio) == 0 || len(prio) > 4 {
		return false
	}
	v, err := strconv.ParseUint(string(prio), 10, 16)
	return err == nil && v>>3 == 0
}

// Close releases the log.
func (k *Kmsg) Close() error {
	if k.fd < 0 {
		return nil
	}
	err := syscall.Close(k.fd)
	k.fd = -1
	return err
}

// netnsEntry is a namespace's name, its bind mount, and when the
// namespace was made (the nsfs inode's change time).
type netnsEntry struct {
	name, path string
	born       time.Time
}

// netnsName is the ip-netns name of the namespace inode a line logged at
// at gives; "" when the inode has no name; model.NetNSGone when the name
// now on that inode belongs to a namespace made after the line: inode
// numbers are reused once a namespace is deleted, and a line of the old
// one must not be pinned on the new.
func (k *Kmsg) netnsName(ino uint64, at time.Time) string {
	e, ok := k.names[ino]
	if ok && !k.still(ino, e) {
		ok = false
	}
	if !ok && time.Since(k.reloaded) > time.Second {
		k.reload()
		e, ok = k.names[ino]
	}
	switch {
	case !ok:
		return ""
	case at.Before(e.born.Add(-10 * time.Millisecond)):
		return model.NetNSGone
	}
	return e.name
}

// still reports whether the cached name is still that namespace.
func (k *Kmsg) still(ino uint64, e netnsEntry) bool {
	var st syscall.Stat_t
	return syscall.Stat(e.path, &st) == nil && st.Ino == ino &&
		time.Unix(st.Ctim.Sec, st.Ctim.Nsec).Equal(e.born)
}

// reload reads the named namespaces again.
func (k *Kmsg) reload() {
	k.reloaded = time.Now()
	k.names = map[uint64]netnsEntry{}
	add := func(ino uint64, name, path string) {
		var st syscall.Stat_t
		if _, seen := k.names[ino]; !seen && syscall.Stat(path, &st) == nil && st.Ino == ino {
			k.names[ino] = netnsEntry{name: name, path: path, born: time.Unix(st.Ctim.Sec, st.Ctim.Nsec)}
		}
	}
	if k.mountinfo != "" {
		for ino, m := range kernelfs.NetnsMounts(k.mountinfo) {
			add(ino, m.Name, m.Path)
		}
	}
	entries, _ := os.ReadDir(k.netnsDir)
	for _, d := range entries {
		var st syscall.Stat_t
		if path := filepath.Join(k.netnsDir, d.Name()); syscall.Stat(path, &st) == nil {
			add(st.Ino, d.Name(), path)
		}
	}
}
