package clitest

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/remote/oneshot"
	"github.com/tablefull/tablefull/sources/kernelfs/kernelfstest"
	"github.com/tablefull/tablefull/sources/netns"
	"github.com/tablefull/tablefull/sources/netns/nstest"
)

// CensusIn is what tablefull census --json says inside ns.
func CensusIn(t *testing.T, ns *netns.NS) model.Census {
	t.Helper()
	var c model.Census
	jsonIn(t, ns, &c, "census", "--json")
	return c
}

// HashsizePath is the global hashsize, the buckets of the one hash every
// namespace shares.
const HashsizePath = "/sys/module/nf_conntrack/parameters/hashsize"

// MaxPath is the global conntrack cap, nf_conntrack_max.
const MaxPath = "/proc/sys/net/netfilter/nf_conntrack_max"

// NeedKernel skips unless the test can build namespaces and change the
// global conntrack max.
func NeedKernel(t *testing.T, tools ...string) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short (make check): no kernel tests")
	}
	kernelfstest.Need(t, "a namespace", append([]string{"ip", "nft"}, tools...)...)
	if _, err := os.Stat(MaxPath); err != nil {
		exec.Command("modprobe", "nf_conntrack").Run()
		if _, err := os.Stat(MaxPath); err != nil {
			t.Skip("needs nf_conntrack")
		}
	}
}

// LowerMax sets the global nf_conntrack_max, and the hashsize with it
// (max = buckets, the proportions real hosts have), as the test's claim
// allows (nstest.SetKnob), and restores both when the test ends, pass or
// fail.
func LowerMax(t *testing.T, v uint64) {
	t.Helper()
	host, _ := os.ReadFile("/proc/sys/net/netfilter/nf_conntrack_count")
	if n, _ := strconv.ParseUint(strings.TrimSpace(string(host)), 10, 64); n > v/2 {
		t.Skipf("the host namespace tracks %d entries: lowering the global max to %d would hurt it", n, v)
	}
	SetBuckets(t, v)
	if err := nstest.SetKnob(t, MaxPath, strconv.FormatUint(v, 10), v); err != nil {
		t.Fatal(err)
	}
}

// SetBuckets sets the global hashsize to v for the test, restored after:
// a lowered cap keeps the kernel's own proportions (max = buckets since
// 5.15, rounded up by it to a page of 512 buckets), not hundreds of
// buckets an entry.
func SetBuckets(t *testing.T, v uint64) {
	t.Helper()
	if _, err := os.ReadFile(HashsizePath); err != nil {
		t.Logf("the hashsize is not writable here (%v): the test runs over the host's buckets", err)
		return
	}
	if err := nstest.SetKnob(t, HashsizePath, strconv.FormatUint(v, 10), v); err != nil {
		t.Fatalf("set the hashsize to %d: %v", v, err)
	}
}

// labsMade numbers the namespaces labNS makes: tests side by side make
// theirs at once.
var labsMade atomic.Int64

// LabNS creates a tracked namespace deleted when the test ends.
func LabNS(t *testing.T) *netns.NS {
	t.Helper()
	ns, err := netns.Create(fmt.Sprintf("tft-%d-%d", os.Getpid(), labsMade.Add(1)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := ns.Delete(); err != nil {
			t.Errorf("delete namespace: %v", err)
		}
	})
	if err := ns.Nft(netns.TrackRuleset); err != nil {
		t.Fatal(err)
	}
	return ns
}

// SnapshotIn runs `tablefull snapshot --json` inside ns (this test binary
// acting as the command).
func SnapshotIn(t *testing.T, ns *netns.NS) oneshot.Snapshot {
	t.Helper()
	var doc oneshot.Snapshot
	jsonIn(t, ns, &doc, "snapshot", "--json")
	return doc
}

// jsonIn runs tablefull args (this test binary acting as the command)
// inside ns and decodes the JSON document it prints into doc.
func jsonIn(t *testing.T, ns *netns.NS, doc any, args ...string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := ns.Command(exe, args...)
	cmd.Env = append(os.Environ(), "TABLEFULL_AS_MAIN=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s in %s: %v", args[0], ns.Name, err)
	}
	if err := json.Unmarshal(out, doc); err != nil {
		t.Fatalf("decode %s: %v\n%s", args[0], err, out)
	}
}

// NobodyBinary copies this test binary where user nobody can run it.
func NobodyBinary(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "tablefull-nobody-") // t.TempDir's parent is 0700
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "tablefull")
	CopyFile(t, exe, bin)
	return bin
}

// CopyFile copies from to to, failing the test on an error.
func CopyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// VethPair is two tracked namespaces joined by a veth: a at 10.77.0.1,
// b at 10.77.0.2, deleted when the test ends.
func VethPair(t *testing.T) (a, b *netns.NS) {
	t.Helper()
	a, b = LabNS(t), LabNS(t)
	ip := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %v: %v: %s", args, err, out)
		}
	}
	ip("link", "add", "eth0", "netns", a.Name, "type", "veth", "peer", "name", "eth0", "netns", b.Name)
	for i, ns := range []*netns.NS{a, b} {
		ip("-n", ns.Name, "addr", "add", fmt.Sprintf("10.77.0.%d/24", i+1), "dev", "eth0")
		ip("-n", ns.Name, "link", "set", "eth0", "up")
	}
	return a, b
}

// kvRe is one k=v of conntrack -S.
var kvRe = regexp.MustCompile(`(\w+)=(\d+)`)

// ParseConntrackS reads `conntrack -S` output: one line per CPU of k=v.
func ParseConntrackS(t *testing.T, out string) []map[string]uint64 {
	var rows []map[string]uint64
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		row := map[string]uint64{}
		for _, m := range kvRe.FindAllStringSubmatch(line, -1) {
			row[m[1]] = MustUint(t, m[2])
		}
		rows = append(rows, row)
	}
	return rows
}

// MustUint is s as a number, failing the test when it is not one.
func MustUint(t *testing.T, s string) uint64 {
	t.Helper()
	v, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
	if err != nil {
		t.Fatalf("parse %q: %v", s, err)
	}
	return v
}

// KernelResolvesClashes reports whether this kernel counts clash_resolve
// (5.6 and later): it lets two flows that raced for one tuple both
// through, where older kernels dropped the second.
func KernelResolvesClashes(t *testing.T) bool {
	t.Helper()
	head, err := os.ReadFile("/proc/net/stat/nf_conntrack")
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(head), "\n")
	return strings.Contains(" "+first+" ", " clashres ")
}
