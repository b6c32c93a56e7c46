package owners

import "testing"

func TestCgroupOwner(t *testing.T) {
	for _, c := range []struct{ cgroup, name, kind string }{
		{"0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod3f2a9c1e_1b2c_4d5e.slice/cri-containerd-0123456789abcdef.scope\n",
			"3f2a9c1e-1b2c-4d5e", "pod"},
		{"0::/kubepods/besteffort/pod7e1f-22/abcdef0123456789\n", "7e1f-22", "pod"},
		{"0::/system.slice/docker-4f1e2d3c4b5a69788776.scope\n", "4f1e2d3c4b5a", "container"},
		{"12:pids:/docker/9a8b7c6d5e4f3a2b1c\n11:cpu:/docker/9a8b7c6d5e4f3a2b1c\n", "9a8b7c6d5e4f", "container"},
		{"0::/machine.slice/libpod-aa11bb22cc33dd44.scope/container\n", "aa11bb22cc33", "container"},
		{"0::/system.slice/nginx.service\n", "nginx.service", "unit"},
		{"0::/user.slice/user-0.slice/session-3.scope\n", "", ""},
		// A user's delegated subtree: named like a unit, a pod, a container,
		// it is the user's.
		{"0::/user.slice/user-1000.slice/user@1000.service/app.slice/sshd.service\n", "uid 1000: sshd.service", "user"},
		{"0::/user.slice/user-1000.slice/user@1000.service/kubepods/pod3f2a-1b/x\n", "uid 1000: x", "user"},
		{"0::/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-aa11bb22cc33dd44.scope\n", "uid 1000: libpod-aa11bb22cc33dd44.scope", "user"},
		{"0::/user.slice/user-1000.slice/user@1000.service\n", "user@1000.service", "unit"},
		// A pod only under the kubelet's own slice.
		{"0::/system.slice/kubepods-pod3f2a_1b.slice\n", "", ""},
	} {
		if name, kind := CgroupOwner(c.cgroup); name != c.name || kind != c.kind {
			t.Errorf("CgroupOwner(%q) = %q, %q; want %q, %q", c.cgroup, name, kind, c.name, c.kind)
		}
	}
}
