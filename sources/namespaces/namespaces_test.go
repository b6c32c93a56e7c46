package namespaces

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/sources/kernelfs"
	"github.com/tablefull/tablefull/sources/netns/nstest"
)

func TestParseNSStat(t *testing.T) {
	count, drops, err := parseNSStat([]byte(nstest.StatText))
	if err != nil || count != 300 || drops != (dropCounts{drop: 0x10 + 0x20}) { // early_drop is no drop
		t.Errorf("parseNSStat = %d, %+v, %v; want 300, 48 drops", count, drops, err)
	}
	// 0x30 drops, of which insert_failed accounts for 0x0c beyond the 2
	// chain-too-long events (those drop without counting drop)
	clash := `entries insert_failed drop early_drop chainlength
00000100 00000008 00000010 00000005 00000001
00000100 00000006 00000020 00000000 00000001
`
	if _, drops, err := parseNSStat([]byte(clash)); err != nil || drops != (dropCounts{drop: 0x30, insert: 0x0c, chain: 2}) {
		t.Errorf("parseNSStat of a clashing namespace = %+v, %v; want 48 drops, 12 of them on insert, 2 chains too long", drops, err)
	}
	if _, _, err := parseNSStat([]byte("garbage\n")); err == nil {
		t.Error("garbage parsed")
	}
}

// TestNamespacesOnFixture: one process per namespace is read, the host's
// own namespace is not among the others, each is named by its cgroup or
// command, and a process that goes away takes its namespace with it.
func TestNamespacesOnFixture(t *testing.T) {
	root := t.TempDir()
	proc := filepath.Join(root, "proc")
	process := func(pid, ns, cgroup, comm string, stat bool) {
		dir := filepath.Join(proc, pid)
		os.MkdirAll(filepath.Join(dir, "ns"), 0o755)
		os.Symlink("net:["+ns+"]", filepath.Join(dir, "ns", "net"))
		os.WriteFile(filepath.Join(dir, "cgroup"), []byte(cgroup), 0o644)
		os.WriteFile(filepath.Join(dir, "comm"), []byte(comm+"\n"), 0o644)
		if stat {
			os.MkdirAll(filepath.Join(dir, "net", "stat"), 0o755)
			os.WriteFile(filepath.Join(dir, "net", "stat", "nf_conntrack"), []byte(nstest.StatText), 0o644)
		}
	}
	process("self", "1", "0::/init.scope\n", "tablefull", true)
	process("1", "1", "0::/init.scope\n", "systemd", true)
	process("100", "200", "0::/kubepods.slice/kubepods-pod3f2a.slice/cri-containerd-aa.scope\n", "redis-server", true)
	process("101", "200", "0::/kubepods.slice/kubepods-pod3f2a.slice/cri-containerd-bb.scope\n", "sidecar", true)
	process("102", "300", "0::/user.slice/session-1.scope\n", "ip", true)
	n := NewNamespaces(kernelfs.Roots{Proc: proc, Run: filepath.Join(root, "run")})
	ns := n.Read(time.Unix(100, 0), 300)
	if len(ns.Rows) != 2 {
		t.Fatalf("rows %+v, want the pod's and the process's namespaces", ns.Rows)
	}
	byIno := map[uint64]string{}
	for _, r := range ns.Rows {
		byIno[r.Inode] = r.Kind + " " + r.Name
		if r.Count != 300 || r.Drops != 48 || !r.DropsRead {
			t.Errorf("row %+v: want 300 entries, 48 drops (early_drop is no drop)", r)
		}
	}
	if byIno[200] != "pod 3f2a" || byIno[300] != "netns 300" { // a process named "ip" does not name its namespace
		t.Errorf("names %v", byIno)
	}
	os.RemoveAll(filepath.Join(proc, "102"))
	if ns := n.Read(time.Unix(101, 0), 300); len(ns.Rows) != 1 {
		t.Errorf("after the process went: %+v", ns.Rows)
	}
}

// TestNamespaceDropsReadNearCap: far from the cap only the count is read
// (the drops are not, and say so); near it, the whole file.
func TestNamespaceDropsReadNearCap(t *testing.T) {
	root := t.TempDir()
	nstest.FakeNetnsProcess(filepath.Join(root, "proc"), "100", "200", "sleep")
	n := NewNamespaces(kernelfs.Roots{Proc: filepath.Join(root, "proc"), Run: filepath.Join(root, "run")})
	if r := n.Read(time.Unix(100, 0), 262144).Rows[0]; r.Count != 300 || r.DropsRead || r.Drops != 0 {
		t.Errorf("far from the cap: %+v, want the count only", r)
	}
	if r := n.Read(time.Unix(101, 0), 400).Rows[0]; !r.DropsRead || r.Drops != 48 {
		t.Errorf("near the cap: %+v, want the drops read", r)
	}
}

// TestNamespacePeakBetweenSamples: a namespace near the cap has its count
// read between samples too, so a burst to the cap and back is its peak,
// and the table reads near its cap.
func TestNamespacePeakBetweenSamples(t *testing.T) {
	root := t.TempDir()
	stat := nstest.FakeNetnsProcess(filepath.Join(root, "proc"), "100", "200", "sleep") // 300 entries
	n := NewNamespaces(kernelfs.Roots{Proc: filepath.Join(root, "proc"), Run: filepath.Join(root, "run")})
	first := n.Read(time.Unix(100, 0), 320)                              // 94 % of the cap: hot
	burst := strings.ReplaceAll(nstest.StatText, "0000012c", "00000140") // 320: the cap
	os.WriteFile(stat, []byte(burst), 0o644)
	n.PollPeaks()
	os.WriteFile(stat, []byte(nstest.StatText), 0o644)
	second := n.Read(time.Unix(100+int64(NamespacesEvery/time.Second)+1, 0), 320) // a walk in between: the state goes on
	if r := second.Rows[0]; r.Count != 300 || r.Peak != 320 {
		t.Fatalf("after a burst between samples: %+v, want count 300, peak 320", r)
	}
	// nothing dropped: the kernel let every packet in, so it is near its
	// cap, not full (it read full one sample and fine the next before)
	if full, _ := model.FullNamespaces(first, second, 320); len(full) != 0 {
		t.Errorf("a burst to the cap between samples with no drop is full: %+v", full)
	}
	if !diagnose.NamespacesNearCap(model.Sample{Conntrack: model.Conntrack{Max: 320}, Namespaces: second}) {
		t.Error("a namespace at 94 % of the cap is not near it")
	}
}

// TestNamespacesCapKeepsRootMade: a user who makes many namespaces in
// user namespaces of their own (unshare -rn) cannot push out one root
// made (a pod's): over the cap those go first, and the note says how many
// were not read.
func TestNamespacesCapKeepsRootMade(t *testing.T) {
	proc := filepath.Join(t.TempDir(), "proc")
	process := func(pid, net, user, cgroup string) {
		dir := filepath.Join(proc, pid)
		os.MkdirAll(filepath.Join(dir, "ns"), 0o755)
		os.Symlink("net:["+net+"]", filepath.Join(dir, "ns", "net"))
		os.Symlink("user:["+user+"]", filepath.Join(dir, "ns", "user"))
		os.WriteFile(filepath.Join(dir, "cgroup"), []byte(cgroup), 0o644)
		os.WriteFile(filepath.Join(dir, "cmdline"), []byte("x\x00"), 0o644)
		os.WriteFile(filepath.Join(dir, "comm"), []byte("unshare\n"), 0o644)
		os.MkdirAll(filepath.Join(dir, "net", "stat"), 0o755)
		os.WriteFile(filepath.Join(dir, "net", "stat", "nf_conntrack"), []byte(nstest.StatText), 0o644)
	}
	process("self", "1", "10", "0::/init.scope\n")
	for pid := 2; pid <= 50; pid++ {
		process(strconv.Itoa(pid), strconv.Itoa(1000+pid), "99", "0::/user.slice/user-1000.slice/session-1.scope\n")
	}
	process("60", "500", "10", "0::/kubepods.slice/kubepods-pod3f2a.slice/cri-containerd-aa.scope\n")
	n := NewNamespaces(kernelfs.Roots{Proc: proc})
	n.max = 5
	ns := n.Read(time.Unix(100, 0), 300)
	pod := false
	for _, r := range ns.Rows {
		pod = pod || (r.Inode == 500 && r.Kind == "pod")
	}
	if len(ns.Rows) != 5 || !pod {
		t.Errorf("kept %d namespaces, the pod's among them: %v", len(ns.Rows), pod)
	}
	if !strings.Contains(ns.Note, "45 namespaces not read: over the cap of 5") || ns.Unread != 45 {
		t.Errorf("note %q", ns.Note)
	}
}

// TestNamespacesCapKeepsPressedFirst: among namespaces of one kind over
// the cap, one that was near the cap at the last read is kept before
// /proc order would.
func TestNamespacesCapKeepsPressedFirst(t *testing.T) {
	proc := filepath.Join(t.TempDir(), "proc")
	process := func(pid, net string) {
		dir := filepath.Join(proc, pid)
		os.MkdirAll(filepath.Join(dir, "ns"), 0o755)
		os.Symlink("net:["+net+"]", filepath.Join(dir, "ns", "net"))
		os.Symlink("user:[10]", filepath.Join(dir, "ns", "user"))
		os.WriteFile(filepath.Join(dir, "cgroup"), []byte("0::/system.slice/x.service\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "cmdline"), []byte("x\x00"), 0o644)
		os.MkdirAll(filepath.Join(dir, "net", "stat"), 0o755)
		os.WriteFile(filepath.Join(dir, "net", "stat", "nf_conntrack"), []byte(nstest.StatText), 0o644)
	}
	process("self", "1")
	for pid := 2; pid <= 9; pid++ {
		process(strconv.Itoa(pid), strconv.Itoa(1000+pid))
	}
	n := NewNamespaces(kernelfs.Roots{Proc: proc})
	n.Read(time.Unix(100, 0), 262144)  // all read, none near a cap of 262,144
	n.known[1009].hot, n.max = true, 3 // the last in /proc order was near the cap
	n.stale = true
	ns := n.Read(time.Unix(101, 0), 262144)
	kept := false
	for _, r := range ns.Rows {
		kept = kept || r.Inode == 1009
	}
	if !kept {
		t.Errorf("the pressed namespace is not among the %d kept: %+v", len(ns.Rows), ns.Rows)
	}
}

// TestNamespaceNamedByItsMount: a process's namespace that is also bind
// mounted (by ip netns or a CNI plugin) is named after the mount, ahead of
// its cgroup and command.
func TestNamespaceNamedByItsMount(t *testing.T) {
	root := t.TempDir()
	proc := filepath.Join(root, "proc")
	nstest.FakeNetnsProcess(proc, "100", "4026532302", "pause")
	os.MkdirAll(filepath.Join(proc, "self"), 0o755)
	os.WriteFile(filepath.Join(proc, "self", "mountinfo"), mountinfoFixture(t), 0o644)
	n := NewNamespaces(kernelfs.Roots{Proc: proc})
	rows := n.Read(time.Unix(100, 0), 262144).Rows
	if len(rows) != 1 || rows[0].Name != "cni-5e0b2c1a-77d4" || rows[0].Kind != "netns" || rows[0].PID != 100 {
		t.Errorf("rows %+v: want the process's namespace named by its CNI mount", rows)
	}
}

// mountinfoFixture is the mount table of ../testdata/mountinfo/netns-mounts.
func mountinfoFixture(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("../testdata/mountinfo/netns-mounts")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestWalkSkippedWhileNoProcessIsMade: a walk due while the kernel made
// no process since the last (loadavg's newest pid the same) and no mount
// changed finds what the last one found, and is skipped: a process the
// fixture adds behind the kernel's back is not listed; once the newest pid
// moves, the next walk finds it.
func TestWalkSkippedWhileNoProcessIsMade(t *testing.T) {
	root := t.TempDir()
	proc := filepath.Join(root, "proc")
	loadavg := func(last string) {
		if err := os.WriteFile(filepath.Join(proc, "loadavg"), []byte("0.00 0.01 0.05 1/73 "+last+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	nstest.FakeNetnsProcess(proc, "100", "200", "sleep")
	loadavg("100")
	os.MkdirAll(filepath.Join(proc, "self"), 0o755) // a mount table without namespaces' mounts
	if err := os.WriteFile(filepath.Join(proc, "self", "mountinfo"), []byte("22 1 0:21 / /proc rw - proc proc rw\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	n := NewNamespaces(kernelfs.Roots{Proc: proc, Run: filepath.Join(root, "run")})
	at := func(walk int64) int {
		return len(n.Read(time.Unix(100+walk*int64(NamespacesEvery/time.Second+1), 0), 262144).Rows)
	}
	if got := at(0); got != 1 {
		t.Fatalf("%d namespaces at the first walk, want 1", got)
	}
	nstest.FakeNetnsProcess(proc, "101", "300", "sleep")
	if got := at(1); got != 1 {
		t.Errorf("%d namespaces at a walk with no process made since the last, want it skipped (1)", got)
	}
	loadavg("101")
	if got := at(2); got != 2 {
		t.Errorf("%d namespaces once a process was made, want 2", got)
	}
}
