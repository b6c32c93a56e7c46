// Package critest gives kernel tests a real CRI runtime: Debian's
// containerd, started by the test in a mount namespace of its own with a
// pause image built from scratch on the spot (no registry), and pod
// sandboxes run and removed on it over CRI. It is imported by tests only.
package critest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/tablefull/tablefull/sources/pods"
)

// Containerd is a containerd the test started.
type Containerd struct {
	// Socket is its CRI socket as this process reaches it (through the
	// daemon's root: the socket lives in its own mount namespace, at
	// pods.CRISockets' path, where tablefull run there looks).
	Socket string
	pid    int
	dir    string
}

// pauseImage is the sandbox image the test builds.
const pauseImage = "localhost/tablefull-pause:test"

// Needs are the programs StartContainerd runs.
var Needs = []string{"containerd", "containerd-shim-runc-v2", "runc", "ctr", "buildah", "unshare", "nsenter", "go"}

// StartContainerd builds the pause image, starts containerd with its CRI
// plugin, a bridge network of CNI's plugins and its state under the
// test's directory, in a mount namespace where /run is a tmpfs of its own,
// and imports the image; all of it ends with the test. It skips where a
// program of Needs or CNI's plugins are missing.
func StartContainerd(t *testing.T) *Containerd {
	t.Helper()
	for _, p := range Needs {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("needs %s", p)
		}
	}
	if _, err := os.Stat("/usr/lib/cni/bridge"); err != nil {
		t.Skip("needs CNI's plugins in /usr/lib/cni (containernetworking-plugins)")
	}
	dir := t.TempDir()
	archive := buildPause(t, dir)
	writeConfig(t, dir)
	cmd := exec.Command("unshare", "--mount", "--propagation", "private", "sh", "-c",
		"mount -t tmpfs tablefull-test /run && exec containerd --config \"$0\"", filepath.Join(dir, "config.toml"))
	log, err := os.Create(filepath.Join(dir, "containerd.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &Containerd{pid: cmd.Process.Pid, dir: dir}
	c.Socket = filepath.Join("/proc", strconv.Itoa(c.pid), "root", pods.CRISockets[0])
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		exec.Command("ip", "link", "del", bridge).Run()
		if t.Failed() {
			b, _ := os.ReadFile(filepath.Join(dir, "containerd.log"))
			t.Logf("containerd's log:\n%s", b)
		}
	})
	for end := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if _, err := os.Stat(c.Socket); err == nil {
			break
		}
		if time.Now().After(end) {
			b, _ := os.ReadFile(filepath.Join(dir, "containerd.log"))
			t.Fatalf("containerd did not listen within 20 s:\n%s", b)
		}
	}
	if out, err := c.Command("ctr", "--address", pods.CRISockets[0], "-n", "k8s.io", "images", "import", archive).CombinedOutput(); err != nil {
		t.Fatalf("ctr images import: %v\n%s", err, out)
	}
	return c
}

// Command runs name in containerd's mount namespace, where its socket is
// at pods.CRISockets' path.
func (c *Containerd) Command(name string, args ...string) *exec.Cmd {
	return exec.Command("nsenter", append([]string{"--mount=/proc/" + strconv.Itoa(c.pid) + "/ns/mnt", "--", name}, args...)...)
}

// bridge is the CNI network's bridge on the host.
const bridge = "tft-cri0"

// writeConfig writes containerd's configuration and the CNI network
// under dir.
func writeConfig(t *testing.T, dir string) {
	t.Helper()
	cni := filepath.Join(dir, "cni")
	if err := os.MkdirAll(cni, 0o755); err != nil {
		t.Fatal(err)
	}
	conf := fmt.Sprintf(`{"cniVersion": "0.4.0", "name": "tablefull-test", "plugins": [{"type": "bridge", "bridge": %q, "isGateway": true,
  "ipam": {"type": "host-local", "dataDir": %q, "ranges": [[{"subnet": "10.203.0.0/24"}]]}}]}`, bridge, filepath.Join(dir, "ipam"))
	toml := fmt.Sprintf(`version = 2
root = %q
state = %q
[grpc]
  address = %q
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = %q
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "native"
  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
    runtime_type = "io.containerd.runc.v2"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = %q
`, filepath.Join(dir, "root"), filepath.Join(dir, "state"), pods.CRISockets[0], pauseImage, cni)
	for name, text := range map[string]string{filepath.Join(cni, "10-tablefull.conflist"): conf, filepath.Join(dir, "config.toml"): toml} {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// pauseSource is the sandbox's one process: it waits for the signal that
// stops it, as Kubernetes' pause does.
const pauseSource = `package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGTERM, syscall.SIGINT)
	<-c
}
`

// buildPause builds the pause image from scratch in buildah storage of
// the test's own and returns it as an OCI archive.
func buildPause(t *testing.T, dir string) string {
	t.Helper()
	src := filepath.Join(dir, "pause")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "main.go"), []byte(pauseSource), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = src
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GO111MODULE=off", "GOFLAGS=")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s %v: %v", name, args, err)
		}
		return strings.TrimSpace(string(out))
	}
	run("go", "build", "-o", "pause", "main.go")
	store := []string{"--root", filepath.Join(dir, "buildah"), "--runroot", filepath.Join(dir, "buildah-run"), "--storage-driver", "vfs"}
	ctr := run("buildah", append(store, "from", "scratch")...)
	run("buildah", append(store, "copy", ctr, "pause", "/pause")...)
	run("buildah", append(store, "config", "--entrypoint", `["/pause"]`, ctr)...)
	run("buildah", append(store, "commit", ctr, pauseImage)...)
	archive := filepath.Join(dir, "pause.tar")
	run("buildah", append(store, "push", pauseImage, "oci-archive:"+archive+":"+pauseImage)...)
	t.Cleanup(func() {
		exec.Command("buildah", append(store, "rm", "--all")...).Run()
		exec.Command("buildah", append(store, "rmi", "--all", "--force")...).Run()
		exec.Command("umount", "-R", filepath.Join(dir, "buildah")).Run()
	})
	return archive
}

// Sandbox is a pod sandbox to run: its pod's name, namespace and UID,
// and the cgroup its processes go in.
type Sandbox struct {
	Name, Namespace, UID, CgroupParent string
}

// RunSandbox runs s (runtime.v1.RuntimeService/RunPodSandbox: a network
// namespace of its own, set up by CNI, and the pause process) and
// returns its ID; the test's end stops and removes it.
func (c *Containerd) RunSandbox(t *testing.T, s Sandbox) string {
	t.Helper()
	meta := appendString(nil, 1, s.Name)
	meta = appendString(meta, 2, s.UID)
	meta = appendString(meta, 3, s.Namespace)
	linux := appendString(nil, 1, s.CgroupParent)
	config := appendBytes(nil, 1, meta)
	config = appendString(config, 2, s.Name)
	config = appendString(config, 3, filepath.Join(c.dir, "logs", s.UID))
	config = appendBytes(config, 8, linux)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	reply, err := pods.Unary(ctx, c.Socket, "runtime.v1.RuntimeService/RunPodSandbox", appendBytes(nil, 1, config))
	if err != nil {
		b, _ := os.ReadFile(filepath.Join(c.dir, "containerd.log"))
		t.Fatalf("RunPodSandbox: %v\n%s", err, b)
	}
	var id string
	if num, typ, n := protowire.ConsumeTag(reply); n > 0 && num == 1 && typ == protowire.BytesType {
		id, _ = protowire.ConsumeString(reply[n:])
	}
	if id == "" {
		t.Fatalf("RunPodSandbox answered no ID: %x", reply)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		req := appendString(nil, 1, id)
		for _, m := range []string{"StopPodSandbox", "RemovePodSandbox"} {
			if _, err := pods.Unary(ctx, c.Socket, "runtime.v1.RuntimeService/"+m, req); err != nil {
				t.Errorf("%s %s: %v", m, id, err)
			}
		}
		removeCgroups(s.CgroupParent)
	})
	return id
}

// PID is the sandbox's pause process: the process whose cgroup path
// ends in the sandbox's ID (cgroup v1 or v2, either driver).
func PID(t *testing.T, id string) int {
	t.Helper()
	procs, _ := filepath.Glob("/proc/[0-9]*/cgroup")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil || !strings.Contains(string(b), id+"\n") {
			continue
		}
		if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(p))); err == nil {
			return pid
		}
	}
	t.Fatalf("no process is in the sandbox %s's cgroup", id)
	return 0
}

// removeCgroups removes the pod's cgroup and its parents up to the root
// in every hierarchy, where they are empty: the runtime leaves them, and
// the sandbox's own goes a moment after its removal.
func removeCgroups(parent string) {
	roots, _ := filepath.Glob("/sys/fs/cgroup/*") // the hierarchies of v1 and the hybrid's unified one
	for _, root := range append(roots, "/sys/fs/cgroup") {
		pod := filepath.Join(root, parent)
		for i := 0; i < 100; i++ {
			if err := os.Remove(pod); err == nil || os.IsNotExist(err) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		for d := filepath.Dir(pod); len(d) > len(filepath.Clean(root)); d = filepath.Dir(d) {
			os.Remove(d)
		}
	}
}

// appendString appends field num as a string.
func appendString(b []byte, num protowire.Number, s string) []byte {
	return protowire.AppendString(protowire.AppendTag(b, num, protowire.BytesType), s)
}

// appendBytes appends field num as an embedded message.
func appendBytes(b []byte, num protowire.Number, v []byte) []byte {
	return protowire.AppendBytes(protowire.AppendTag(b, num, protowire.BytesType), v)
}
