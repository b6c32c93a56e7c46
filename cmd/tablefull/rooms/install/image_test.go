package install

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/sources/kernelfs/kernelfstest"
	"github.com/tablefull/tablefull/sources/netns/nstest"
)

// TestImage: where buildah is installed, make image builds tablefull's
// OCI image from scratch (one layer, no base image), labelled with the
// version and the commit, tagged as the DaemonSet names it and by the
// version; the image's binary, run, says the same version and commit.
func TestImage(t *testing.T) {
	nstest.Parallel(t, nstest.Claim{Heavy: true}) // touches no conntrack knob, builds an image: after every room's serial tests
	kernelfstest.Need(t, "buildah's storage")
	if _, err := exec.LookPath("buildah"); err != nil {
		t.Skip("needs buildah, which make image builds with (make deps installs it)")
	}
	repo := fmt.Sprintf("localhost/tablefull-test-%d", os.Getpid())
	const version, revision = "1.2.3-test", "0123456789abcdef"
	tags := []string{repo + ":" + clitest.ImageTag(t), repo + ":" + version}
	t.Cleanup(func() { exec.Command("buildah", append([]string{"rmi", "-f"}, tags...)...).Run() })
	build := exec.Command("make", "-s", "image", "IMAGE_REPO="+repo, "BIN="+filepath.Join(t.TempDir(), "tablefull"),
		"VERSION="+version, "REVISION="+revision)
	build.Dir = "../../../.."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("make image: %v\n%s", err, out)
	}
	for _, tag := range tags {
		out, err := exec.Command("buildah", "inspect", "--type", "image", "--format",
			`{{index .OCIv1.Config.Labels "org.opencontainers.image.version"}}|{{index .OCIv1.Config.Labels "org.opencontainers.image.revision"}}|{{len .OCIv1.RootFS.DiffIDs}}|{{.OCIv1.Config.Entrypoint}}`, tag).Output()
		if err != nil {
			t.Fatalf("buildah inspect %s: %v", tag, err)
		}
		if got, want := strings.TrimSpace(string(out)), version+"|"+revision+"|1|[/usr/bin/tablefull]"; got != want {
			t.Errorf("image %s: %q, want %q (from scratch: one layer)", tag, got, want)
		}
	}
	ctr, err := exec.Command("buildah", "from", "--pull=never", tags[0]).Output()
	if err != nil {
		t.Fatalf("buildah from %s: %v", tags[0], err)
	}
	name := strings.TrimSpace(string(ctr))
	defer exec.Command("buildah", "rm", name).Run()
	// chroot isolation: no OCI runtime or cgroup controllers needed.
	out, err := exec.Command("buildah", "run", "--isolation", "chroot", name, "--", "/usr/bin/tablefull", "version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "tablefull "+version+" (revision "+revision+",") {
		t.Errorf("the image's tablefull version: %v\n%s", err, out)
	}
}
