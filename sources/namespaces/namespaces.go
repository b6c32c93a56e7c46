package namespaces

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/arith"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/sources/kernelfs"
)

// NamespacesEvery is how often the host's processes are walked again for
// namespaces: not every sample on a host of 10,000 processes. A namespace
// whose process went away is found again at the next walk, sooner. A
// walk reads the namespace of new processes only (a process seen before
// keeps the one it had: one that setns()s later is seen through others).
const NamespacesEvery = 10 * time.Second

// maxNamespaces bounds the namespaces kept between walks.
const maxNamespaces = 4096

// Namespaces finds the host's other network namespaces and reads each
// one's table through a process inside it: /proc/PID/net/stat/nf_conntrack
// is that namespace's count and per-CPU counters, no setns needed. A
// namespace no process is in is read from a thread entered into it.
type Namespaces struct {
	// mu guards the rest: Read runs beside the sample (offPath), PollPeaks
	// on the sampler's goroutine, which skips a poll while a read runs.
	mu       sync.Mutex
	proc     string
	statFile string // under /proc/PID: net/stat/nf_conntrack
	self     uint64
	root     bool // reading as root or with CAP_SYS_PTRACE: a process refused is protected, not another user's
	walked   time.Time
	stale    bool
	known    map[uint64]*nsProc
	pids     map[int]pidNS // every process's namespace at the last walk (net 0: none to read)
	max      int           // how many namespaces are kept (maxNamespaces)
	unread   int           // how many were over it at the last walk
	denied   bool          // other users' processes were not readable at the last walk
	// lastPID is the kernel's newest pid at the last walk (lastPID), and
	// refused says a process could not be read then: asked again.
	lastPID string
	refused bool
	mounts  map[uint64]kernelfs.NSMount // bind-mounted namespaces by inode: ip netns names
	// mountsRead is when the mount table was read (MountsEvery, without
	// a mountWatch); mountWatch, when the table is procfs's, says when
	// it changed.
	mountsRead time.Time
	mountWatch *kernelfs.MountWatch
	// slab is the slab's count of every namespace's entries, ownCount
	// this one's: held open (unaccountedFor reads them at each read).
	slab, ownCount *kernelfs.OpenFile
	note           string
	buf            []byte
	rows           []model.NetNS // every namespace's row at a read, reused
	// hashOwn and buckets are the table of this process's namespace and
	// the hash's buckets (Hash): deepHash reads them.
	hashOwn, buckets uint64
	// slabBaseline is the kernel's entries no namespace read accounted for
	// at the last check (unaccountedFor).
	slabBaseline uint64
}

// nsProc is the process a namespace is read through, and its name.
type nsProc struct {
	pid  int
	name string // sanitized once, when the walk finds it
	kind string
	// netnsPath, when set, is the namespace's file its table is read
	// through, entered (readEntered): its bind mount when no
	// process is inside, or /proc/PID/ns/net when the stat file is absent.
	netnsPath string
	// drops are the drops at the last whole read; dropping that they
	// rose at it, so the next read is whole again.
	drops               dropCounts
	dropsRead, dropping bool
	// hot: near the cap at the last read, so PollPeaks reads its count
	// between samples; peak the highest it saw since.
	hot  bool
	peak uint64
	// idleUntil, for a namespace no process is in whose table was empty
	// at its last read, or one with a process whose count and drops did
	// not change between its last two reads, is when it is read again:
	// entering one costs a thread's setns and a netlink dump, a stat file
	// an open and a read, and a thousand idle ones made by ip netns add
	// (or 110 quiet pods) must not cost a thousand of those every sample.
	idleUntil time.Time
	idleFor   time.Duration
	due       bool // idle, and read at this read (markDue)
	// count is the count at its last read; read that it was read once.
	count uint64
	read  bool
}

// row is the namespace as last read.
func (p *nsProc) row(ino uint64) model.NetNS {
	var path string
	if p.pid == 0 {
		path = p.netnsPath
	}
	return model.NetNS{Inode: ino, Name: p.name, Kind: p.kind, PID: p.pid, Path: path,
		Count: p.count, Drops: p.drops.drop, InsertDrops: p.drops.insert, ChainTooLong: p.drops.chain, DropsRead: p.dropsRead}
}

// NewNamespaces reads the namespaces under roots; the namespace of this
// process is its own table, not one of the others.
func NewNamespaces(roots kernelfs.Roots) *Namespaces {
	caps, _ := kernelfs.EffectiveCaps(roots.Proc)
	return &Namespaces{proc: roots.Proc, statFile: filepath.Join("net", "stat", "nf_conntrack"),
		root: os.Geteuid() == 0 || caps&(1<<kernelfs.CapSysPtrace) != 0, buf: make([]byte, 64<<10), max: maxNamespaces,
		slab:     kernelfs.NewOpenFile(filepath.Join(roots.Sys, "kernel", "slab", "nf_conntrack", "objects"), 64),
		ownCount: kernelfs.NewOpenFile(kernelfs.SysctlPath(roots.Proc, "net.netfilter.nf_conntrack_count"), 32)}
}

// Close releases the files held open between reads.
func (n *Namespaces) Close() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.slab.Close()
	n.ownCount.Close()
	if n.mountWatch != nil {
		n.mountWatch.Close()
		n.mountWatch = nil
	}
}

// Hash tells the reader the count of the table this process is in and
// the buckets of the hash every namespace shares, for the next Read.
func (n *Namespaces) Hash(own, buckets uint64) {
	n.mu.Lock()
	n.hashOwn, n.buckets = own, buckets
	n.mu.Unlock()
}

// deepHash reports whether the hash's chains average model's
// ChainsWatchedDepth or more over every namespace's entries: the slab's
// count of them where read, else this one's and the others' as last read.
func (n *Namespaces) deepHash(slab uint64, slabRead bool) bool {
	sum := slab
	if !slabRead {
		sum = n.hashOwn
		for _, p := range n.known {
			sum += p.count
		}
	}
	return n.buckets > 0 && arith.ChainDepth(sum, n.buckets) >= arith.ChainsWatchedDepth
}

// DropsFromPct is how full a namespace's table must be (percent of the
// cap) before its drops are read too: a drop count is the whole file (a
// row per CPU, 65 KB on 384 CPUs), the count its first row. A namespace
// that dropped at its last read is read whole again.
const DropsFromPct = 50.0

// maxStat bounds one namespace's stat file.
const maxStat = 4 << 20

// Read returns the namespaces' tables at now against the cap max,
// walking the processes again every NamespacesEvery (or when a process
// read went away).
func (n *Namespaces) Read(now time.Time, capMax uint64) *model.Namespaces {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.known == nil || n.stale || now.Sub(n.walked) >= NamespacesEvery {
		n.walk(now)
	}
	notEntered := 0
	var slab uint64
	var slabRead bool     // without the slab's count a quiet namespace that fills would go unseen: none is quiet
	if len(n.known) > 0 { // read only when there is a namespace to judge by it
		slab, slabRead = n.slabEntries()
	}
	n.markDue(now, capMax, slab, slabRead)
	deep := n.deepHash(slab, slabRead)
	rows := n.rows[:0]
	for ino, p := range n.known {
		if p.idleFor > 0 && !p.due { // idle at its last reads: as it was read
			rows = append(rows, p.row(ino))
			continue
		}
		p.due = false
		count, drops, whole, err := n.readStat(p, dropsFrom(p, capMax, deep))
		if err != nil {
			switch {
			case errors.Is(err, fs.ErrNotExist):
				delete(n.known, ino) // gone (the process, or the namespace with it)
				n.stale = true
			case errors.Is(err, kernelfs.ErrPermission) || errors.Is(err, syscall.EPERM):
				notEntered++ // no process in it to read it through, and not allowed in
			}
			continue
		}
		p.dropping = whole && drops.drop > p.drops.drop && p.dropsRead
		unchanged := p.read && count == p.count && drops == p.drops && !p.dropping
		p.drops, p.dropsRead, p.count, p.read = drops, whole, count, true
		var peak uint64
		if p.hot {
			peak = max(p.peak, count)
		}
		p.hot, p.peak = arith.Percent(max(count, peak), capMax) >= diagnose.FastWithinPct, 0
		idle := p.idleFor
		p.idleUntil, p.idleFor = time.Time{}, 0
		switch {
		case p.pid == 0 && count == 0:
			p.idleFor = min(max(2*idle, NamespacesEvery), EmptyRereadEvery)
		case p.pid != 0 && unchanged && !p.hot && slabRead:
			p.idleFor = min(max(2*idle, NamespacesEvery), QuietRereadEvery)
		}
		if p.idleFor > 0 {
			p.idleUntil = now.Add(p.idleFor + time.Duration(ino%10_000)*NamespacesEvery/10_000)
		}
		row := p.row(ino)
		row.Peak = peak
		rows = append(rows, row)
	}
	n.rows = rows // the next read's, once the sample has its own copy of the rows it keeps
	out := model.SortNamespaces(rows)
	out.Rows = slices.Clone(out.Rows)
	out.Note, out.Unread, out.Denied = n.note, n.unread, n.denied || notEntered > 0
	if notEntered > 0 {
		out.Note = joinNote(out.Note, fmt.Sprintf("%d namespaces no process is in (kept by a bind mount) not read: entering one needs CAP_SYS_ADMIN and setns", notEntered))
	}
	return &out
}

// PollPeaks reads, between samples, the count of the namespaces near the
// cap at the last sample: a burst to the cap is their next row's peak.
func (n *Namespaces) PollPeaks() {
	if !n.mu.TryLock() { // a read under way reads the counts itself
		return
	}
	defer n.mu.Unlock()
	for _, p := range n.known {
		if !p.hot {
			continue
		}
		if count, err := n.readCount(p); err == nil {
			p.peak = max(p.peak, count)
		}
	}
}

// readCount reads a namespace's count alone: the stat file's first rows.
func (n *Namespaces) readCount(p *nsProc) (uint64, error) {
	count, _, _, err := n.readStat(p, math.MaxUint64)
	return count, err
}

// readStat reads a namespace's count, and its drops (whole) when the
// count is at least dropsFrom: from a process inside it, else from a
// thread entered into it through its namespace file.
func (n *Namespaces) readStat(p *nsProc, dropsFrom uint64) (count uint64, drops dropCounts, whole bool, err error) {
	if p.netnsPath == "" {
		f, err := os.Open(filepath.Join(n.proc, strconv.Itoa(p.pid), n.statFile))
		if err == nil {
			defer f.Close()
			return n.readStatOpen(f, dropsFrom)
		}
		link := filepath.Join(n.proc, strconv.Itoa(p.pid), "ns", "net")
		if _, serr := os.Lstat(link); !errors.Is(err, fs.ErrNotExist) || serr != nil {
			return 0, dropCounts{}, false, err // unreadable, or the process went away
		}
		p.netnsPath = link // the process is there, its stat file is not: no conntrack procfs
	}
	return n.readEntered(p.netnsPath, dropsFrom)
}

// dropsFrom is the count from which a namespace's drops are read: half
// the cap, or nothing when it was dropping at its last read or the hash
// every namespace shares is deep (deepHash): then any namespace's insert
// may meet a chain past the kernel's limit, however empty its own table.
func dropsFrom(p *nsProc, capMax uint64, deep bool) uint64 {
	if p.dropping || deep {
		return 0
	}
	return uint64(math.Ceil(float64(capMax) * DropsFromPct / 100))
}

// readStatOpen reads an open stat file: its first rows for the count,
// and the whole of it, for every CPU's drops, when the count is at least
// dropsFrom.
func (n *Namespaces) readStatOpen(f *os.File, dropsFrom uint64) (count uint64, drops dropCounts, whole bool, err error) {
	k, err := f.Read(n.buf[:4096]) // the header and the first rows: the count
	if err != nil {
		return 0, dropCounts{}, false, err
	}
	count, _, err = parseNSStat(n.buf[:k])
	if err != nil || count < dropsFrom {
		return count, dropCounts{}, false, err
	}
	for k < maxStat {
		if k == len(n.buf) {
			n.buf = append(n.buf, make([]byte, len(n.buf))...)
		}
		m, rerr := f.Read(n.buf[k:])
		k += m
		if rerr != nil || m == 0 {
			break
		}
	}
	count, drops, err = parseNSStat(n.buf[:k])
	return count, drops, err == nil, err
}
