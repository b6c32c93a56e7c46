package owners

import "strings"

// containerScopes are the prefixes of a container's cgroup scope, by
// runtime: docker-<id>.scope, cri-containerd-<id>.scope, crio-<id>.scope,
// libpod-<id>.scope (podman).
var containerScopes = []string{"docker-", "cri-containerd-", "crio-", "libpod-"}

// CgroupOwner names what a process belongs to from the text of its
// /proc/PID/cgroup: the pod (a kubepods…pod<uid> slice or directory: the
// pod's UID), the container (a runtime's scope, or cgroupfs's
// /docker/<id>: the first 12 characters of its id), or the systemd unit
// (*.service), or a user's own group below their service manager; kind
// is "pod", "container", "unit" or "user", "" when none.
func CgroupOwner(cgroup string) (name, kind string) { return pathOwner(unifiedPath(cgroup)) }

// unifiedPath is the cgroup v2 path in the text of a /proc/PID/cgroup, or
// the first hierarchy's when there is none.
func unifiedPath(cgroup string) string {
	path := ""
	for _, line := range strings.Split(cgroup, "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "0" && parts[1] == "" || path == "" { // the unified hierarchy wins
			path = parts[2]
		}
	}
	return path
}

// pathOwner names what a cgroup path belongs to, as CgroupOwner does.
// Below a user's own service manager (user@UID.service) the user names
// the directories: a group there is that user's ("uid 1000: sshd.service",
// kind "user"), never a system unit, pod or container. A pod is a pod
// only below the kubelet's own slice (kubepods, kubepods.slice, or
// PARENT-kubepods.slice under a parent slice), which only root makes.
func pathOwner(path string) (name, kind string) {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	for i, seg := range segs {
		if uid, ok := strings.CutPrefix(seg, "user@"); ok && strings.HasSuffix(uid, ".service") && i+1 < len(segs) {
			return "uid " + strings.TrimSuffix(uid, ".service") + ": " + segs[len(segs)-1], "user"
		}
	}
	kubelet := false // below the kubelet's own slice
	for i, seg := range segs {
		if uid, ok := podUID(seg); ok && kubelet {
			return uid, "pod"
		}
		kubelet = kubelet || seg == "kubepods" || seg == "kubepods.slice" || strings.HasSuffix(seg, "-kubepods.slice")
		if seg == "docker" && i+1 < len(segs) {
			return short(segs[i+1]), "container"
		}
	}
	for i := len(segs) - 1; i >= 0; i-- {
		seg := segs[i]
		for _, p := range containerScopes {
			if id, ok := strings.CutPrefix(seg, p); ok && strings.HasSuffix(id, ".scope") {
				return short(strings.TrimSuffix(id, ".scope")), "container"
			}
		}
		if strings.HasSuffix(seg, ".service") {
			return seg, "unit"
		}
	}
	return "", ""
}

// podUID is the pod UID in a kubepods segment: "kubepods-burstable-
// pod3f2a_1b.slice" (systemd driver, dashes as underscores) or
// "pod3f2a-1b" (cgroupfs driver).
func podUID(seg string) (string, bool) {
	seg = strings.TrimSuffix(seg, ".slice")
	i := strings.LastIndex(seg, "pod")
	if i < 0 || i+3 >= len(seg) || (i > 0 && seg[i-1] != '-') {
		return "", false
	}
	return strings.ReplaceAll(seg[i+3:], "_", "-"), true
}

// short is a container id as docker ps shows it.
func short(id string) string { return id[:min(12, len(id))] }

// GroupOf names a cgroup path for an owner: its pod, container or unit,
// or else its last part ("user.slice", "/" for the root), kind "cgroup".
func GroupOf(path string) (name, kind string) {
	if name, kind := pathOwner(path); kind != "" {
		return name, kind
	}
	if i := strings.LastIndexByte(strings.TrimSuffix(path, "/"), '/'); i >= 0 && i+1 < len(path) {
		return path[i+1:], "cgroup"
	}
	return path, "cgroup"
}
