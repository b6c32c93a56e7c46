// Package pods names Kubernetes pods by their UID, the only name a pod's
// cgroup carries: "kube-system/coredns-5d78c9869d-abcde" for
// "3f2a…". It asks the CRI runtime (containerd's or CRI-O's socket,
// ListPodSandbox only) where one answers, and reads the kubelet's pod log
// directories
// (/var/log/pods/NAMESPACE_NAME_UID, one per pod the node runs), which
// every kubelet writes whatever its runtime — the node's own, or through
// /proc/1/root from a pod that shares the host's PIDs; where none is
// found the UID stays the name. It only reads.
package pods

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// KubeletLogDir is where the kubelet keeps a directory per pod.
const KubeletLogDir = "/var/log/pods"

// Bounds: a node's pods are read at most every refreshEvery (a pod that
// started since is named at the next read), and at most maxPods of them.
const (
	refreshEvery = 10 * time.Second
	maxPods      = 4096
)

// Names finds pods' names by UID: from a CRI runtime's socket where one
// answers, and from the kubelet's directories.
type Names struct {
	dirs, sockets []string
	mu            sync.Mutex
	at            time.Time
	uid           map[string]string
	refreshing    bool
}

// New reads the kubelet's pod directories in the first of dirs that is
// there at each read.
func New(dirs ...string) *Names { return &Names{dirs: dirs} }

// OnNode asks the CRI runtime's socket (CRISockets) and reads
// KubeletLogDir, here or else the node's through its first process's
// root under proc: a DaemonSet's pod with the host's PIDs reads the
// node's without mounting them.
func OnNode(proc string) *Names {
	n := New(KubeletLogDir, filepath.Join(proc, "1", "root", KubeletLogDir))
	for _, s := range CRISockets {
		n.sockets = append(n.sockets, s, filepath.Join(proc, "1", "root", s))
	}
	return n
}

// Of is the pod's "namespace/name", or "" when nothing names uid. The
// first call reads (a runtime's answer bounded by a second); later ones
// answer from what was read and read again in the background once that
// is older than refreshEvery, so a slow runtime never holds a sample.
func (n *Names) Of(uid string) string {
	if n == nil || uid == "" {
		return ""
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	switch {
	case n.uid == nil:
		n.uid, n.at = n.read(), time.Now()
	case time.Since(n.at) >= refreshEvery && !n.refreshing:
		n.refreshing = true
		go func() {
			m := n.read()
			n.mu.Lock()
			n.uid, n.at, n.refreshing = m, time.Now(), false
			n.mu.Unlock()
		}()
	}
	return n.uid[uid]
}

// read is every pod named: the kubelet's directories, then the first
// runtime that answers, whose names win.
func (n *Names) read() map[string]string {
	out := read(n.dirs)
	for _, s := range n.sockets {
		if _, err := os.Stat(s); err != nil {
			continue
		}
		if m, err := listPodSandboxes(context.Background(), s); err == nil {
			for uid, name := range m {
				if len(out) < maxPods || out[uid] != "" {
					out[uid] = name
				}
			}
			break
		}
	}
	return out
}

// read lists the pod directories of the first of dirs there:
// NAMESPACE_NAME_UID, where neither a namespace nor a pod's name may hold
// "_" (both are DNS labels or subdomains). Anything else there is passed
// over.
func read(dirs []string) map[string]string {
	out := map[string]string{}
	var f *os.File
	for _, d := range dirs {
		var err error
		if f, err = os.Open(d); err == nil {
			break
		}
	}
	if f == nil {
		return out
	}
	defer f.Close()
	names, _ := f.Readdirnames(maxPods)
	for _, name := range names {
		parts := strings.Split(name, "_")
		if len(parts) != 3 || !label(parts[0], 63) || !label(parts[1], 253) || !uidLike(parts[2]) {
			continue
		}
		out[parts[2]] = parts[0] + "/" + parts[1]
	}
	return out
}

// label reports whether s is a Kubernetes name of at most max
// characters: lowercase letters, digits, '-' and '.'.
func label(s string, max int) bool {
	if s == "" || len(s) > max {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '.') {
			return false
		}
	}
	return true
}

// uidLike reports whether s looks like a pod UID: hex digits and dashes.
func uidLike(s string) bool {
	if len(s) < 8 || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r == '-') {
			return false
		}
	}
	return true
}
