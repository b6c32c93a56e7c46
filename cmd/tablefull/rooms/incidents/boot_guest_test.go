package incidents

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
)

// The boot test's guest: Debian 12 as debootstrap makes it, with its own
// kernel (nf_conntrack a module) and these files on top.

// The guest root holds, beyond minbase, the packages listed in
// testdata/guest-packages: the kernel and an initramfs for it, systemd and
// udev, nft for the late rule, ip for the namespace the installed
// exporter must see, and ipvsadm for an IPVS service. testdata/guest-root makes it.

// guestCtLate loads a ct rule after systemd-sysctl ran, as dockerd and
// kube-proxy do: nf_conntrack is autoloaded then, too late for sysctl.d.
const guestCtLate = `#!/bin/sh
nft -f - <<'NFT'
table inet tft {
	chain out {
		type filter hook output priority 0;
		ct state new accept
	}
}
NFT
`

// guestCheck runs at every boot once the late rule is in: the first boot
// persists with tablefull (and, with tft.noudev on the kernel command
// line, removes the udev rule it wrote: the module part left out); every
// later boot writes what the kernel holds and tune's drift lines. Then
// the guest powers off. Results go to /var/lib/tft, read from the image.
const guestCheck = `#!/bin/sh
mkdir -p /var/lib/tft
for i in $(seq 1 300); do [ -e /proc/sys/net/netfilter/nf_conntrack_max ] && break; sleep 0.1; done
udevadm settle --timeout=30 # the rule runs when the module loads: let it finish
if [ ! -e /var/lib/tft/persisted ]; then
	tablefull tune --observe 0 --set net.netfilter.nf_conntrack_max=12345 --set nf_conntrack.hashsize=16384 --persist --yes > /var/lib/tft/tune.out 2>&1
	echo "exit=$?" >> /var/lib/tft/tune.out
	if grep -q tft.noudev /proc/cmdline; then rm /etc/udev/rules.d/99-tablefull-conntrack.rules; fi
	touch /var/lib/tft/persisted
else
	echo "max=$(cat /proc/sys/net/netfilter/nf_conntrack_max) hashsize=$(cat /sys/module/nf_conntrack/parameters/hashsize) initstate=$(cat /sys/module/nf_conntrack/initstate)" > /var/lib/tft/result
	tablefull tune --observe 0 --dry-run > /var/lib/tft/drift.out 2>&1
	if grep -q tft.exporter /proc/cmdline; then /usr/local/sbin/tft-exporter > /var/lib/tft/exporter.out 2>&1; fi
fi
sync
systemctl poweroff
`

// guestExporter installs the package as an operator would, starts its
// exporter with systemd, fills a namespace's table to its cap (one UDP
// datagram a socket on its loopback, under a cap of 300) and keeps what
// the exporter serves on loopback and logs: read from the image.
const guestExporter = `#!/bin/bash
dpkg -i /var/tmp/tablefull.deb >/dev/null; echo "dpkg=$?"
systemctl enable --now tablefull-exporter.service; echo "enable=$?"
echo 300 > /proc/sys/net/netfilter/nf_conntrack_max
ip netns add full && ip -n full link set lo up
ip netns exec full sleep 900 & # a process in it, as a pod's pause: read through it
ip netns exec full nft -f - <<'NFT'
table inet tft {
	chain out {
		type filter hook output priority 0;
		ct state new accept
	}
}
NFT
ip netns exec full sh -c 'echo 600 > /proc/sys/net/netfilter/nf_conntrack_udp_timeout' # its own: kept while the exporter looks
ip netns exec full bash -c 'for i in $(seq 1 400); do echo x > /dev/udp/127.0.0.1/9; done' 2>/dev/null
echo "count=$(ip netns exec full cat /proc/sys/net/netfilter/nf_conntrack_count)"
scrape() { exec 3<>/dev/tcp/127.0.0.1/9874 && printf 'GET /metrics HTTP/1.0\r\n\r\n' >&3 && cat <&3; exec 3<&-; }
for i in $(seq 1 40); do
	# the collector evicts unassured entries past 95 % of the cap when an
	# early drop fails: fill it again before each look
	ip netns exec full bash -c 'for i in $(seq 1 50); do echo x > /dev/udp/127.0.0.1/9; done' 2>/dev/null
	scrape > /var/lib/tft/metrics 2>/dev/null
	grep -q 'entries{.*netns="full"} 300' /var/lib/tft/metrics && grep -q 'drops_total{.*netns="full"} [1-9]' /var/lib/tft/metrics && break
	sleep 2
done
journalctl -u tablefull-exporter.service --no-pager -o cat > /var/lib/tft/exporter.journal
# Debian's kernel traces nf_conntrack_in, which this VM's cannot: the
# probes' split of the drops is tested here.
TFT_GUEST_PROBES=1 /usr/local/libexec/tablefull.test -test.run '^TestDropsToldApartWhereDecided$' -test.v > /var/lib/tft/probes.out 2>&1
echo "exit=$?" >> /var/lib/tft/probes.out
# what changed between kernel versions, on Debian's 6.1: the NAT's
# TIME_WAIT reclaim (6.5 on) and SYN_SENT's renewal by retransmits
# (before 6.2), as tablefull's rules for the release say
/usr/local/libexec/tablefull.test -test.run '^(TestNATReclaimsTimeWaitAsTheModelSays|TestSynSentHoldAsTheModelSays)$' -test.v > /var/lib/tft/versions.out 2>&1
echo "exit=$?" >> /var/lib/tft/versions.out
# IPVS, as kube-proxy's IPVS mode uses it (Debian's kernel has ip_vs): a
# service whose real server is the exporter on loopback, a few
# connections through it, and what tablefull reads of it.
modprobe ip_vs; ip addr add 10.9.9.9/32 dev lo
ipvsadm -A -t 10.9.9.9:80 -s rr && ipvsadm -a -t 10.9.9.9:80 -r 127.0.0.1:9874 -m; echo "ipvsadm=$?" > /var/lib/tft/ipvs.out
for i in 1 2 3; do timeout 2 bash -c 'exec 3<>/dev/tcp/10.9.9.9/80 && printf "GET /metrics HTTP/1.0\r\n\r\n" >&3 && cat <&3 >/dev/null'; done
ipvsadm -L -n >> /var/lib/tft/ipvs.out 2>&1
tablefull snapshot --json > /var/lib/tft/ipvs.json 2>>/var/lib/tft/ipvs.out
`

// guestUnits order the two: the late rule after systemd-sysctl, the check
// after the rule.
var guestUnits = map[string]string{
	"tft-ct-late.service": "[Unit]\nAfter=systemd-sysctl.service network.target\n[Service]\nType=oneshot\nExecStart=/usr/local/sbin/tft-ct-late\n[Install]\nWantedBy=multi-user.target\n",
	"tft-check.service":   "[Unit]\nAfter=tft-ct-late.service\n[Service]\nType=oneshot\nExecStart=/usr/local/sbin/tft-check\n[Install]\nWantedBy=multi-user.target\n",
}

// guestRoot returns the cached Debian root under the build directory,
// made by testdata/guest-root the first time (one per package list; a
// root .ci/run began to make early is waited for).
func guestRoot(t *testing.T) string {
	t.Helper()
	build, err := filepath.Abs("../../../../_build") // "_": go list ./... does not walk it (debootstrap mounts proc in it)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("testdata/guest-root", build).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("make the guest root: %v\n%s", err, tail(ee.Stderr))
		}
		t.Fatalf("make the guest root: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// guestImage makes an ext4 image of root with the guest's files, this
// test binary as tablefull and deb (when given) as /var/tmp/tablefull.deb,
// and returns it.
func guestImage(t *testing.T, root, deb string) string {
	t.Helper()
	work := fmt.Sprintf("%s-work-%d", root, os.Getpid()) // beside the root: hard links stay on one filesystem
	os.RemoveAll(work)
	defer os.RemoveAll(work)
	if out, err := exec.Command("cp", "-al", root, work).CombinedOutput(); err != nil { // hard links: new files only go on top
		t.Fatalf("cp -al: %v %s", err, out)
	}
	exe, _ := os.Executable()
	files := map[string]string{
		"usr/local/sbin/tft-ct-late":  guestCtLate,
		"usr/local/sbin/tft-check":    guestCheck,
		"usr/local/sbin/tft-exporter": guestExporter,
		"usr/local/bin/tablefull":     "#!/bin/sh\nTABLEFULL_AS_MAIN=1 exec /usr/local/libexec/tablefull.test \"$@\"\n",
	}
	for name, text := range files {
		clitest.WriteFile(t, filepath.Join(work, name), text, 0o755)
	}
	for name, text := range guestUnits {
		clitest.WriteFile(t, filepath.Join(work, "etc/systemd/system", name), text, 0o644)
		wants := filepath.Join(work, "etc/systemd/system/multi-user.target.wants")
		os.MkdirAll(wants, 0o755)
		os.Symlink("/etc/systemd/system/"+name, filepath.Join(wants, name))
	}
	// No login prompt on the serial line: nothing else writes to it.
	os.Symlink("/dev/null", filepath.Join(work, "etc/systemd/system/serial-getty@ttyS0.service"))
	os.MkdirAll(filepath.Join(work, "usr/local/libexec"), 0o755)
	if out, err := exec.Command("cp", exe, filepath.Join(work, "usr/local/libexec/tablefull.test")).CombinedOutput(); err != nil {
		t.Fatalf("copy the binary: %v %s", err, out)
	}
	if deb != "" {
		if out, err := exec.Command("cp", deb, filepath.Join(work, "var/tmp/tablefull.deb")).CombinedOutput(); err != nil {
			t.Fatalf("copy the package: %v %s", err, out)
		}
	}
	img := filepath.Join(t.TempDir(), "root.img")
	if out, err := exec.Command("mkfs.ext4", "-q", "-F", "-L", "root", "-d", work, img, "1500M").CombinedOutput(); err != nil {
		t.Fatalf("mkfs.ext4: %v %s", err, out)
	}
	return img
}

// guestFile reads a file of the powered-off guest's image (debugfs).
func guestFile(t *testing.T, img, path string) string {
	t.Helper()
	out, err := exec.Command("debugfs", "-R", "cat "+path, img).Output()
	if err != nil {
		t.Fatalf("debugfs cat %s: %v", path, err)
	}
	return string(out)
}

// tail is the end of a long output, for an error message.
func tail(b []byte) string {
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return fmt.Sprintf("…%s", b)
}
