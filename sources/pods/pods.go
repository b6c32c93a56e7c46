// Package pods names Kubernetes pods by their UID, the only name a pod's
// cgroup carries: "kube-system/coredns-5d78c9869d-abcde" for
// "3f2a…". It reads the kubelet's pod log directories
// (/var/log/pods/NAMESPACE_NAME_UID, one per pod the node runs), which
// every kubelet writes whatever its runtime — the node's own, or through
// /proc/1/root from a pod that shares the host's PIDs; where none is
// found the UID stays the name. It only reads.
package pods

import (
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

// Names finds pods' names by UID from the kubelet's directories.
type Names struct {
	dirs []string
	mu   sync.Mutex
	at   time.Time
	uid  map[string]string
}

// New reads the kubelet's pod directories in the first of dirs that is
// there at each read.
func New(dirs ...string) *Names { return &Names{dirs: dirs} }

// OnNode reads KubeletLogDir here, else the node's through its first
// process's root under proc: a DaemonSet's pod with the host's PIDs
// reads the node's without mounting it.
func OnNode(proc string) *Names {
	return New(KubeletLogDir, filepath.Join(proc, "1", "root", KubeletLogDir))
}

// Of is the pod's "namespace/name", or "" when no directory names uid.
// It reads the directory again when its last read is older than
// refreshEvery.
func (n *Names) Of(uid string) string {
	if n == nil || uid == "" {
		return ""
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if now := time.Now(); n.uid == nil || now.Sub(n.at) >= refreshEvery {
		n.uid, n.at = read(n.dirs), now
	}
	return n.uid[uid]
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
