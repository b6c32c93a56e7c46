//go:build bench

package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
)

// TestRatioWho prints what attributing new connections and drops costs
// the agent while the kernel makes about 5,000 connections a second in
// a namespace near its cap: the agent with its eBPF probes loaded,
// against the same agent with eBPF refused (CAP_BPF, CAP_PERFMON and
// CAP_SYS_ADMIN dropped: the census's sockets only), and against
// conntrack -E on the same stream; rounds of 10 s, alternating, medians.
// Goal: ≤ 1.5× the agent without. The probes' own cost is paid in the
// connecting processes' system calls, not the agent's: it is not in
// these numbers.
func TestRatioWho(t *testing.T) {
	clitest.NeedKernel(t, "conntrack", "setpriv")
	if _, err := os.Stat("/sys/kernel/btf/vmlinux"); err != nil {
		t.Skip("needs the kernel's BTF")
	}
	bin, ns, stats := nearCapChurn(t, "127.0.0.1:18096")
	const span, rounds = 10 * time.Second, 3
	drop := "-bpf,-perfmon,-sys_admin"
	var rates []float64
	probed := func() float64 {
		// loaded once the first samples see the table near its cap
		ms, rate := measureRound(t, ns, stats, 3*time.Second, span, func(pid int) {
			if !probing(pid) {
				t.Errorf("the agent holds no eBPF link near the cap")
			}
		}, bin, "agent")
		rates = append(rates, rate)
		return ms
	}
	unprobed := func() float64 {
		ms, _ := measureRound(t, ns, stats, 3*time.Second, span, func(pid int) {
			if probing(pid) {
				t.Errorf("the agent without CAP_BPF holds an eBPF link")
			}
		}, "setpriv", "--bounding-set="+drop, "--inh-caps="+drop, bin, "agent")
		return ms
	}
	r := alternating(rounds, probed, unprobed, eventsPeer(t, ns, stats, span))
	with, without, theirs := r[0], r[1], r[2]
	w, wo, c := median(with), median(without), median(theirs)
	goal(t, w <= 1.5*wo, "attributing at %.0f connections/s: agent %.1f ms/s with its probes, %.1f ms/s without: %.2f× (goal ≤ 1.5×); conntrack -E -e NEW,DESTROY %.1f ms/s: %.2f×",
		median(rates), w, wo, w/wo, c, w/c)
	fmt.Printf("    rounds: with %.1f, without %.1f, conntrack %.1f\n", with, without, theirs)
}

// probing reports whether pid holds an eBPF link (its probes attached).
func probing(pid int) bool {
	fds, _ := filepath.Glob(fmt.Sprintf("/proc/%d/fd/*", pid))
	for _, fd := range fds {
		if l, err := os.Readlink(fd); err == nil && l == "anon_inode:bpf_link" {
			return true
		}
	}
	return false
}
