package kubernetes

import (
	"os"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/sources/kernelfs"
	"github.com/tablefull/tablefull/sources/namespaces"
	"github.com/tablefull/tablefull/sources/netns/nstest"
)

// TestNamespacesNamedByCgroup: processes in namespaces, placed in real
// cgroups shaped as Docker makes them and as a containerd pod's under
// kubepods: each namespace is named after its container or pod. One in a
// systemd unit is named by its inode: a unit (or a process) does not
// name a namespace (model.NamespaceName).
func TestNamespacesNamedByCgroup(t *testing.T) {
	clitest.NeedKernel(t, "unshare")
	cgroupRoot := nstest.NeedCgroupV2(t)
	for _, c := range []struct{ path, name, kind string }{ // name "": the namespace's inode
		{"system.slice/docker-4f1e2d3c4b5a69788776aabbccddeeff00112233445566778899aabbccddeeff.scope", "4f1e2d3c4b5a", "container"},
		{"kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod3f2a9c1e_1b2c_4d5e_8f90_a1b2c3d4e5f6.slice/cri-containerd-0123456789abcdef.scope",
			"3f2a9c1e-1b2c-4d5e-8f90-a1b2c3d4e5f6", "pod"},
		{"system.slice/tablefull-test-web.service", "", "netns"},
	} {
		t.Run(c.kind, func(t *testing.T) {
			dir := filepath.Join(cgroupRoot, c.path)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { // children first, also when the test failed
				for d := dir; d != cgroupRoot; d = filepath.Dir(d) {
					os.Remove(d)
				}
			})
			// A namespace of its own with no ip netns name (that would win):
			// the one process in it is all that says what it is.
			sleeper := osexec.Command("unshare", "--net", "sleep", "600")
			clitest.StartUntilEnd(t, sleeper)
			t.Cleanup(func() { // out of the cgroup before it is removed
				os.WriteFile(filepath.Join(cgroupRoot, "cgroup.procs"), []byte(strconv.Itoa(sleeper.Process.Pid)), 0o644)
			})
			if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(sleeper.Process.Pid)), 0o644); err != nil {
				t.Fatal(err)
			}
			time.Sleep(100 * time.Millisecond) // unshare has become sleep
			n := namespaces.NewNamespaces(kernelfs.DefaultRoots())
			got := n.Read(time.Now(), 0)
			for _, r := range got.Rows {
				if r.PID == sleeper.Process.Pid {
					if want := c.name; (want == "" && r.Name != strconv.FormatUint(r.Inode, 10)) || (want != "" && r.Name != want) || r.Kind != c.kind {
						t.Errorf("named %s %q, want %s %q", r.Kind, r.Name, c.kind, c.name)
					}
					return
				}
			}
			t.Errorf("the process in %s does not name a namespace: %+v", c.path, got.Rows)
		})
	}
}

// TestPodNamedByTheKubelet: a process in a namespace of its own, in a
// pod's cgroup as containerd makes it under kubepods, and the kubelet's
// directory for that pod (/var/log/pods/NAMESPACE_NAME_UID, made in a
// private mount namespace over a tmpfs, so the host's /var/log is never
// written): tablefull snapshot names the namespace by the pod's
// namespace/name, not its UID.
func TestPodNamedByTheKubelet(t *testing.T) {
	clitest.NeedKernel(t, "unshare")
	cgroupRoot := nstest.NeedCgroupV2(t)
	const uid = "3f2a9c1e-1b2c-4d5e-8f90-a1b2c3d4e5f7"
	dir := filepath.Join(cgroupRoot, "kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod"+strings.ReplaceAll(uid, "-", "_")+".slice/cri-containerd-0123456789abcdef.scope")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for d := dir; d != cgroupRoot; d = filepath.Dir(d) {
			os.Remove(d)
		}
	})
	sleeper := osexec.Command("unshare", "--net", "sleep", "600")
	clitest.StartUntilEnd(t, sleeper)
	t.Cleanup(func() {
		os.WriteFile(filepath.Join(cgroupRoot, "cgroup.procs"), []byte(strconv.Itoa(sleeper.Process.Pid)), 0o644)
	})
	if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(sleeper.Process.Pid)), 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	exe, _ := os.Executable()
	cmd := osexec.Command("unshare", "-m", "sh", "-c", "mount -t tmpfs tablefull-test /var/log && mkdir -p /var/log/pods/kube-system_coredns-5d78c9869d-abcde_"+uid+
		" && exec \"$0\" snapshot --json", exe)
	cmd.Env = append(os.Environ(), "TABLEFULL_AS_MAIN=1")
	if got := podRowLabel(t, cmd, sleeper.Process.Pid); got != "pod kube-system/coredns-5d78c9869d-abcde" {
		t.Errorf("the pod's process is named %q, want pod kube-system/coredns-5d78c9869d-abcde", got)
	}
}
