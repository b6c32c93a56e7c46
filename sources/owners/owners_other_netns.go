package owners

import (
	"bufio"
	"encoding/hex"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/sources/kernelfs"
)

// Bounds of the search for the host's other namespaces' addresses.
const (
	maxAwayNamespaces = 4096
	maxAwayAddrs      = 1 << 16
	maxAddrFile       = 4 << 20
)

// ownersInOtherNetns maps the addresses of this host's other network
// namespaces (a pod's, a container's) to the namespace they belong to,
// named as everywhere (NetnsName), with a process in it as detail: the traffic such
// an address sends through this namespace (forwarded, NAT'd: a pod's
// seen on its node) has no socket here, but has an owner. Loopback and
// link-local addresses are left out: namespaces share them. An address
// two namespaces claim names neither: it is said to be ambiguous.
func ownersInOtherNetns(proc string) map[netip.Addr]model.Owner {
	var self string
	if l, err := os.Readlink(filepath.Join(proc, "thread-self", "ns", "net")); err == nil {
		self = l
	}
	d, err := os.Open(proc)
	if err != nil {
		return nil
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	byNS := map[uint64]int{}
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil || len(byNS) >= maxAwayNamespaces {
			continue
		}
		link := filepath.Join(proc, n, "ns", "net")
		if l, err := os.Readlink(link); err != nil || l == self {
			continue
		}
		ino, err := kernelfs.NetnsInode(link)
		if err != nil {
			continue
		}
		if _, seen := byNS[ino]; !seen {
			byNS[ino] = pid
		}
	}
	mounts := kernelfs.NetnsMounts(filepath.Join(proc, "self", "mountinfo"))
	out := map[netip.Addr]model.Owner{}
	claims := map[netip.Addr]int{} // how many namespaces claim an address
	for ino, pid := range byNS {
		o := model.Owner{PID: pid, Comm: commOf(proc, pid)}
		o.Group, o.Kind = NetnsName(proc, pid, ino, mounts)
		if o.Kind != "netns" {
			o.PID, o.Comm = 0, "" // the pod or container, whichever process of it
		}
		for _, a := range localAddrs(filepath.Join(proc, strconv.Itoa(pid), "net")) {
			switch prev, ok := out[a]; {
			case ok && prev != o: // two namespaces claim it (one may be a user's): neither is named
				claims[a]++
				out[a] = ambiguousOwner(a, claims[a])
			case !ok && len(out) < maxAwayAddrs:
				out[a], claims[a] = o, 1
			}
		}
	}
	return out
}

// ambiguousOwner names an address n namespaces claim: any user can give
// a namespace of their own a pod's address, so none of them is named.
func ambiguousOwner(a netip.Addr, n int) model.Owner {
	return model.Owner{Group: "ambiguous: " + strconv.Itoa(n) + " namespaces claim " + a.String(), Kind: "cgroup"}
}

// localAddrs are a namespace's own addresses, but loopback: IPv4's from
// fib_trie ("|-- ADDR" then "/32 host LOCAL"), IPv6's from if_inet6.
func localAddrs(netDir string) []netip.Addr {
	var out []netip.Addr
	seen := map[netip.Addr]bool{}
	add := func(a netip.Addr) {
		if a.IsValid() && !a.IsLoopback() && !a.IsLinkLocalUnicast() && !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	if f, err := os.Open(filepath.Join(netDir, "fib_trie")); err == nil {
		sc := bufio.NewScanner(io.LimitReader(f, maxAddrFile))
		var last netip.Addr
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			if a, ok := strings.CutPrefix(line, "|-- "); ok {
				last, _ = netip.ParseAddr(a)
			} else if strings.HasPrefix(line, "/32 host LOCAL") {
				add(last)
			}
		}
		f.Close()
	}
	if f, err := os.Open(filepath.Join(netDir, "if_inet6")); err == nil {
		sc := bufio.NewScanner(io.LimitReader(f, maxAddrFile))
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) == 0 || len(fields[0]) != 32 {
				continue
			}
			if b, err := hex.DecodeString(fields[0]); err == nil {
				add(netip.AddrFrom16([16]byte(b)))
			}
		}
		f.Close()
	}
	return out
}
