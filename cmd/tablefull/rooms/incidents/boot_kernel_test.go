package incidents

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/sources/netns/nstest"
)

// bootTimeout bounds one boot to power-off under TCG (about 45 s here).
const bootTimeout = 4 * time.Minute

// boot starts the guest image once, with its own kernel and initramfs and
// extra on the kernel command line, and waits for it to power off.
func boot(t *testing.T, root, img, extra string) time.Duration {
	t.Helper()
	kernels, _ := filepath.Glob(filepath.Join(root, "boot", "vmlinuz-*"))
	initrds, _ := filepath.Glob(filepath.Join(root, "boot", "initrd.img-*"))
	if len(kernels) != 1 || len(initrds) != 1 {
		t.Fatalf("the guest root has kernels %v, initramfs %v: want one each", kernels, initrds)
	}
	ctx, cancel := context.WithTimeout(context.Background(), bootTimeout)
	defer cancel()
	// TCG: KVM's device opens here but a guest hangs (no nested virtualisation).
	cmd := exec.CommandContext(ctx, "qemu-system-x86_64", "-accel", "tcg", "-m", "1024", "-smp", "1", "-nographic", "-no-reboot", "-nic", "none",
		"-kernel", kernels[0], "-initrd", initrds[0], "-append", "root=/dev/vda rw console=ttyS0 panic=-1 quiet "+extra,
		"-drive", "file="+img+",format=raw,if=virtio")
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("boot (%s): %v\n%s", extra, err, tail(out))
	}
	return time.Since(start)
}

// TestPersistSurvivesReboot boots Debian 12's own kernel, where
// nf_conntrack is a module that a ct rule loads after systemd-sysctl ran:
// tablefull tune --persist inside, a reboot, and nf_conntrack_max and the
// hashsize hold. With the udev rule removed after the persist (the module
// part left out), the same reboot loses the max — the test can fail —
// and tune inside says so as drift. After the reboot that holds, the
// package is installed there and its exporter started by systemd, as
// its unit grants it: a namespace filled to its cap shows full on its
// /metrics, and every part is read (checkInstalledExporter).
func TestPersistSurvivesReboot(t *testing.T) {
	// Parallel: it runs after every serial test of every room (a claim
	// of nothing waits for theirs), beside the others that touch no
	// global knob, by when .ci/run's guest root is made.
	nstest.Parallel(t, nstest.Claim{Heavy: true}) // a virtual machine emulated in software
	clitest.NeedKernel(t, "qemu-system-x86_64", "debootstrap", "mkfs.ext4", "debugfs")
	if os.Getenv("TABLEFULL_SKIP_BOOT") != "" {
		t.Skip("TABLEFULL_SKIP_BOOT set")
	}
	start := time.Now()
	root := guestRoot(t)
	t.Logf("guest root ready in %s", time.Since(start).Round(time.Second))
	deb := clitest.BuildPackage(t, t.TempDir())
	img := guestImage(t, root, deb)
	noUdev := filepath.Join(t.TempDir(), "no-udev.img")
	if out, err := exec.Command("cp", "--sparse=always", img, noUdev).CombinedOutput(); err != nil {
		t.Fatalf("copy the image: %v %s", err, out)
	}
	for _, c := range []struct {
		name, img, extra string
		holds            bool
	}{{"with the udev rule", img, "tft.exporter", true}, {"module part left out", noUdev, "tft.noudev", false}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel() // two guests on two CPUs
			first := boot(t, root, c.img, c.extra)
			tuned := guestFile(t, c.img, "/var/lib/tft/tune.out")
			for _, want := range []string{"exit=0", "nf_conntrack is a module", "written: /etc/sysctl.d/99-tablefull.conf",
				"written: /etc/udev/rules.d/99-tablefull-conntrack.rules", "written: /etc/modprobe.d/tablefull.conf"} {
				if !strings.Contains(tuned, want) {
					t.Errorf("tune --persist in the guest does not say %q:\n%s", want, tuned)
				}
			}
			second := boot(t, root, c.img, c.extra)
			t.Logf("boots to power-off: %s, %s", first.Round(time.Second), second.Round(time.Second))
			result := strings.TrimSpace(guestFile(t, c.img, "/var/lib/tft/result"))
			drift := guestFile(t, c.img, "/var/lib/tft/drift.out")
			t.Logf("after the reboot: %s", result)
			if !strings.Contains(result, "initstate=live") || !strings.Contains(result, "hashsize=16384") {
				t.Errorf("after the reboot %q: want the module loaded and the modprobe.d hashsize", result)
			}
			switch held := strings.Contains(result, "max=12345 "); {
			case c.holds && !held:
				t.Errorf("the persisted nf_conntrack_max did not survive the reboot: %s", result)
			case !c.holds && held:
				t.Errorf("without the udev rule the max still held (%s): the test cannot tell", result)
			case !c.holds && !strings.Contains(drift, "drift: persisted nf_conntrack_max 12345, live"):
				t.Errorf("tune after the lost reboot does not say the drift:\n%s", drift)
			case c.holds && strings.Contains(drift, "drift:"):
				t.Errorf("tune says drift where the values held:\n%s", drift)
			}
			if c.holds {
				checkInstalledExporter(t, c.img)
			}
		})
	}
}

// checkInstalledExporter reads what the guest's installed exporter served
// with a namespace ("full") at its cap of 300 (at 95 % of it or more once
// filled: the collector evicts unassured entries there): that namespace's
// entries at the cap and its drops, the namespaces and the kernel log read, and only
// the capability deliberately not granted named in its log.
func checkInstalledExporter(t *testing.T, img string) {
	t.Helper()
	out := guestFile(t, img, "/var/lib/tft/exporter.out")
	metrics := guestFile(t, img, "/var/lib/tft/metrics")
	journal := guestFile(t, img, "/var/lib/tft/exporter.journal")
	if probes := guestFile(t, img, "/var/lib/tft/probes.out"); !strings.Contains(probes, "exit=0") || !strings.Contains(probes, "split true") {
		t.Errorf("the probes' split of the drops on Debian's kernel:\n%s", tail([]byte(probes)))
	} else {
		t.Logf("on Debian's kernel: %s", clitest.GrepLines(probes, "split true"))
	}
	if !strings.Contains(out, "dpkg=0") || !strings.Contains(out, "enable=0") || !regexp.MustCompile(`count=(28[5-9]|29[0-9]|300)\b`).MatchString(out) {
		t.Fatalf("installing and starting the exporter, filling the namespace:\n%s\njournal:\n%s\nmetrics:\n%s", out, journal, clitest.GrepLines(metrics, "tablefull_up", "tablefull_netns"))
	}
	for _, want := range []string{`entries{inode=`, `kind="netns",netns="full"} 300`, `tablefull_up{part="namespaces"} 1`, `tablefull_up{part="kernel_log"} 1`} {
		if !strings.Contains(metrics, want) {
			t.Errorf("the installed exporter's /metrics lack %s:\n%s\njournal:\n%s", want, clitest.GrepLines(metrics, "tablefull_up", "tablefull_netns"), journal)
		}
	}
	if !regexp.MustCompile(`tablefull_netns_conntrack_drops_total\{[^}]*netns="full"\} [1-9]`).MatchString(metrics) {
		t.Errorf("the full namespace's drops are not on /metrics:\n%s", clitest.GrepLines(metrics, "tablefull_netns"))
	}
	checkGuestIPVS(t, img)
	// Debian 12's kernel is older than the host's where rules changed:
	// its NAT takes no TIME_WAIT tuple back, and tablefull says so for
	// it; its SYN retransmits do not renew SYN_SENT (the fix the source
	// dates 6.2 is in it), and tablefull says that too
	if v := guestFile(t, img, "/var/lib/tft/versions.out"); !strings.Contains(v, "exit=0") || strings.Count(v, "--- PASS") != 2 ||
		!strings.Contains(v, "a new flow took a TIME_WAIT tuple back: false; tablefull says false") ||
		!strings.Contains(v, "renewed by the retransmits: false; tablefull says false") {
		t.Errorf("the version-dependent cases on Debian's kernel:\n%s", tail([]byte(v)))
	} else {
		t.Logf("on Debian's kernel: %s", clitest.GrepLines(v, "tablefull says"))
	}
	// The unit grants every capability but CAP_SYS_ADMIN (namespaces no
	// process is in), deliberately: its log says so, and nothing else.
	if !strings.Contains(journal, "without CAP_SYS_ADMIN") || strings.Count(journal, "without CAP_") != 1 {
		t.Errorf("the installed exporter's log of what it cannot read:\n%s", journal)
	}
}

// checkGuestIPVS: on Debian's kernel, an IPVS service with a few
// connections through it is read by tablefull snapshot: its service, its
// connections against its table, and its table's rows.
func checkGuestIPVS(t *testing.T, img string) {
	t.Helper()
	log := guestFile(t, img, "/var/lib/tft/ipvs.out")
	var snap struct {
		Sample model.Sample `json:"sample"`
	}
	if err := json.Unmarshal([]byte(guestFile(t, img, "/var/lib/tft/ipvs.json")), &snap); err != nil {
		t.Fatalf("the guest's snapshot: %v\n%s", err, log)
	}
	v := snap.Sample.IPVS
	if v == nil || !v.Present || v.Services != 1 || v.Conns == 0 || v.Size == 0 || len(v.Top) != 1 || v.Top[0].Key != "TCP 10.9.9.9:80" {
		t.Fatalf("IPVS in the guest read as %+v\n%s", v, log)
	}
	if len(v.Rows) == 0 || v.Rows[0].To != "10.9.9.9:80" || v.Rows[0].Dest != "127.0.0.1:9874" {
		t.Errorf("IPVS's table in the guest: %+v\n%s", v.Rows, log)
	}
	t.Logf("IPVS on Debian's kernel: %s", v.Text(""))
}
