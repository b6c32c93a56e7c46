package model

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tablefull/tablefull/model/safe"
)

// KernelAtLeast reports whether a kernel release ("6.1.0-28-amd64") is
// major.minor or later: the kernel's rules changed between versions, and
// a verdict says what the host's kernel does. An unreadable release is
// not.
func KernelAtLeast(release string, major, minor int) bool {
	var ma, mi int
	if n, _ := fmt.Sscanf(release, "%d.%d", &ma, &mi); n < 2 {
		return false
	}
	return ma > major || (ma == major && mi >= minor)
}

// UDPAssuredEarly reports whether a kernel assures a UDP entry on any
// packet after its reply, while its timeout stays the single-shot one
// for 2 s: before b7b1d02fc439 (5.16, and 5.10.80 in the stable line).
// There glibc's A and AAAA lookups on one socket are assured, yet held by
// nf_conntrack_udp_timeout, not the stream's. false for an unknown
// release: the rule of the kernels since.
func UDPAssuredEarly(release string) bool {
	var ma, mi, patch int
	n, _ := fmt.Sscanf(release, "%d.%d.%d", &ma, &mi, &patch)
	switch {
	case n < 2 || KernelAtLeast(release, 5, 16):
		return false
	case ma == 5 && mi == 10 && n == 3 && patch >= 80:
		return false
	}
	return true
}

// ClassHeld is the class of f as the kernel holds it: ClassOf, but on a
// kernel that assures UDP early (UDPAssuredEarly) an assured UDP entry
// with no more time left than the single-shot hold (holds, 0 unknown) is
// held by that hold, not the stream's.
func ClassHeld(f Flow, holds ClassCounts, assuredEarly bool) Class {
	c := ClassOf(f)
	if c == ClassUDPStream && assuredEarly && holds[ClassUDPSingle] > 0 && uint64(f.Timeout) <= holds[ClassUDPSingle] {
		return ClassUDPSingle
	}
	return c
}

// SynRenewSpan is how long after a connection's first SYN its last
// retransmit goes out with Linux's default tcp_syn_retries (6): 1 + 2 +
// 4 + 8 + 16 + 32 s.
const SynRenewSpan = 63

// SynSentRenewed reports whether a kernel renews an entry's SYN_SENT
// timeout on every retransmitted SYN, so that an unanswered connection's
// entry lives its hold after the last retry, not after the first SYN:
// kernels before "do not renew entry stuck in tcp SYN_SENT state". The
// source dates it 6.2, but Debian 12's 6.1 counts from the first SYN
// (measured by the boot test), so 6.1 is taken as the first without
// renewal; a stable line that backported it is overstated by the
// retries' span. false for an unknown release: the rule of the kernels
// since.
func SynSentRenewed(release string) bool {
	return release != "" && !KernelAtLeast(release, 6, 1)
}

// HoldOf is how long the kernel of release holds an entry of class cl
// whose timeout is knob seconds: the knob, and on a kernel that renews
// SYN_SENT, the retries' span on top for unanswered TCP.
func HoldOf(cl Class, knob uint64, release string) uint64 {
	if cl == ClassTCPUnanswered && knob > 0 && SynSentRenewed(release) {
		return knob + SynRenewSpan
	}
	return knob
}

// ErrForeignFlow is a flow from outside (an agent's answer, a recording)
// that no kernel makes: refused where it lands.
var ErrForeignFlow = errors.New("not a flow the kernel makes")

// CheckForeign is the one check of a flow that arrives from outside: its
// addresses are IPv4 or IPv6 without a zone (netip takes any bytes after
// a "%", and a zone is drawn as text), and its TCP state is one conntrack
// has. Entries the kernel lists never carry a zone.
func (f Flow) CheckForeign() error {
	for _, a := range [...]struct {
		name string
		zone string
	}{{"source", f.Src.Zone()}, {"destination", f.Dst.Zone()}, {"reply source", f.ReplySrc.Zone()}, {"reply destination", f.ReplyDst.Zone()}} {
		if a.zone != "" {
			return fmt.Errorf("%w: its %s address has a zone", ErrForeignFlow, a.name)
		}
	}
	if f.TCPState < -1 || f.TCPState >= len(TCPStates) {
		return fmt.Errorf("%w: TCP state %d", ErrForeignFlow, f.TCPState)
	}
	return nil
}

// Said is the line's text as a reader should see it: foreign text made
// safe, and the kernel's prefix said once where it prints it twice
// ("nf_conntrack: nf_conntrack: table full" is the kernel's own pr_fmt
// and message prefix).
func (l KernelLine) Said(width int) string {
	const prefix = "nf_conntrack: "
	text := l.Text
	for strings.HasPrefix(text, prefix+prefix) {
		text = strings.TrimPrefix(text, prefix)
	}
	return safe.Text(text, width)
}
