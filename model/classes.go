package model

import (
	"encoding/json"
	"strings"
)

// Class is what kind of traffic a conntrack entry belongs to, by how the
// kernel holds it: each class has its own timeout.
type Class uint8

// The classes, in display order.
const (
	// ClassTCPDone is TCP that was answered and closed: its entry is held
	// in TIME_WAIT (nf_conntrack_tcp_timeout_time_wait).
	ClassTCPDone Class = iota
	// ClassTCPUnanswered is TCP whose SYN was never answered: the entry is
	// held in SYN_SENT (nf_conntrack_tcp_timeout_syn_sent).
	ClassTCPUnanswered
	// ClassTCPOpen is TCP that stands open: ESTABLISHED or CLOSE_WAIT
	// (nf_conntrack_tcp_timeout_established).
	ClassTCPOpen
	// ClassUDPSingle is UDP seen one way or for a single request and
	// reply, such as a DNS lookup (nf_conntrack_udp_timeout).
	ClassUDPSingle
	// ClassUDPStream is UDP seen both ways and assured
	// (nf_conntrack_udp_timeout_stream).
	ClassUDPStream
	// ClassICMP is ICMP and ICMPv6 (nf_conntrack_icmp_timeout).
	ClassICMP
	// ClassOther is every other protocol (nf_conntrack_generic_timeout).
	ClassOther
	// ClassTCPReset is TCP ended by a reset: its entry is held in CLOSE
	// (nf_conntrack_tcp_timeout_close), seconds where TIME_WAIT holds
	// minutes. It comes last in number, so that a stream or recording
	// written before it reads the same; AllClasses shows it after
	// tcp-closed.
	ClassTCPReset
	// ClassTCPHalfOpen is a TCP handshake answered but never completed:
	// its entry is held in SYN_RECV (nf_conntrack_tcp_timeout_syn_recv),
	// unassured, so early drop may evict it. A server whose final ACKs
	// never come (a SYN flood, a broken return path) fills a table with
	// it. Numbered after tcp-reset for the same reason.
	ClassTCPHalfOpen
	// ClassTCPLastAck is a TCP close whose last ACK never came: its entry
	// is held in LAST_ACK (nf_conntrack_tcp_timeout_last_ack), not
	// TIME_WAIT's hold. A peer that vanishes after its FIN (a client
	// gone, a return path lost) leaves one a connection. Numbered last
	// for the same reason.
	ClassTCPLastAck
)

// NumClasses is the number of classes.
const NumClasses = 10

// AllClasses lists the classes in display order.
var AllClasses = [NumClasses]Class{ClassTCPDone, ClassTCPLastAck, ClassTCPReset, ClassTCPUnanswered, ClassTCPHalfOpen, ClassTCPOpen, ClassUDPSingle, ClassUDPStream, ClassICMP, ClassOther}

var classNames = [NumClasses]string{"tcp-closed", "tcp-unanswered", "tcp-open", "udp", "udp-stream", "icmp", "other", "tcp-reset", "tcp-half-open", "tcp-last-ack"}

// String is the class's short name, as the stream, the exporter's class
// label and the screen write it.
func (c Class) String() string {
	if int(c) < NumClasses {
		return classNames[c]
	}
	return "unknown"
}

// ClassNamed returns the class with name s.
func ClassNamed(s string) (Class, bool) {
	for i, n := range classNames {
		if n == s {
			return Class(i), true
		}
	}
	return 0, false
}

// Describe says what the class is, in words an operator reads next to a
// number: "TCP connections, closed and held in TIME_WAIT".
func (c Class) Describe() string {
	switch c {
	case ClassTCPDone:
		return "TCP connections, each held in TIME_WAIT after it closes"
	case ClassTCPReset:
		return "TCP connections ended by a reset, each held in CLOSE"
	case ClassTCPLastAck:
		return "TCP closes whose last ACK never came, held in LAST_ACK"
	case ClassTCPUnanswered:
		return "TCP SYNs never answered, held in SYN_SENT"
	case ClassTCPHalfOpen:
		return "TCP handshakes answered but never completed, held in SYN_RECV"
	case ClassTCPOpen:
		return "TCP connections standing open"
	case ClassUDPSingle:
		return "UDP requests (one packet each way, as a DNS lookup)"
	case ClassUDPStream:
		return "UDP streams (seen both ways and assured)"
	case ClassICMP:
		return "ICMP"
	}
	return "other protocols"
}

// HoldState names the timeout that holds the class: "TIME_WAIT".
func (c Class) HoldState() string {
	switch c {
	case ClassTCPDone:
		return "TIME_WAIT"
	case ClassTCPReset:
		return "CLOSE"
	case ClassTCPLastAck:
		return "LAST_ACK"
	case ClassTCPUnanswered:
		return "SYN_SENT"
	case ClassTCPHalfOpen:
		return "SYN_RECV"
	case ClassTCPOpen:
		return "ESTABLISHED"
	case ClassUDPSingle:
		return "UDP"
	case ClassUDPStream:
		return "UDP stream"
	case ClassICMP:
		return "ICMP"
	}
	return "generic"
}

// Standing reports whether entries of the class live as long as their
// connection does rather than for a hold after a short exchange: their
// number is not rate × hold.
func (c Class) Standing() bool { return c == ClassTCPOpen }

// ClassCounts holds one number per class, in AllClasses' order.
type ClassCounts [NumClasses]uint64

// Total sums every class.
func (v ClassCounts) Total() uint64 {
	var t uint64
	for _, x := range v {
		t += x
	}
	return t
}

// MarshalJSON writes the counts as an object by class name, leaving
// zeros out: a hold of 0 was not read, a count of 0 reads back as 0.
func (v ClassCounts) MarshalJSON() ([]byte, error) {
	m := make(map[string]uint64, NumClasses)
	for i, x := range v {
		if x != 0 {
			m[classNames[i]] = x
		}
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads the object MarshalJSON writes; unknown names are
// ignored.
func (v *ClassCounts) UnmarshalJSON(b []byte) error {
	var m map[string]uint64
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	*v = ClassCounts{}
	for k, x := range m {
		if c, ok := ClassNamed(k); ok {
			v[c] = x
		}
	}
	return nil
}

// conntrack status bits (linux/netfilter/nf_conntrack_common.h).
const (
	StatusSeenReply = 1 << 1 // IPS_SEEN_REPLY
	StatusAssured   = 1 << 2 // IPS_ASSURED
)

// TCP states by number (tcp_conntrack), as in TCPStates.
const (
	tcpSynSent     = 1
	tcpSynRecv     = 2
	TCPEstablished = 3 // exported: the entries list tells an established entry apart
	TCPCloseWait   = 5 // exported: tuning names what holds a table of standing connections
	tcpLastAck     = 6
	tcpTimeWait    = 7
	tcpClose       = 8
	tcpSynSent2    = 9
)

// ClassOf is the class of an entry as it stands (a census) or as it ends
// (a DESTROY event): its protocol, TCP state and status bits.
func ClassOf(f Flow) Class {
	switch f.Proto {
	case 6:
		switch {
		case f.TCPState == tcpSynSent || f.TCPState == tcpSynSent2:
			return ClassTCPUnanswered
		case f.TCPState < 0 && f.Status&StatusSeenReply == 0:
			return ClassTCPUnanswered
		case f.TCPState == tcpSynRecv:
			return ClassTCPHalfOpen
		case f.TCPState == TCPEstablished || f.TCPState == TCPCloseWait:
			return ClassTCPOpen
		case f.TCPState == tcpClose:
			return ClassTCPReset
		case f.TCPState == tcpLastAck:
			return ClassTCPLastAck
		}
		return ClassTCPDone
	case 17, 136: // udp, udplite
		if f.Status&StatusAssured != 0 {
			return ClassUDPStream
		}
		return ClassUDPSingle
	case 1, 58:
		return ClassICMP
	}
	return ClassOther
}

// Proto groups new entries by protocol: a NEW event says no more, since
// whether a connection completes is known only later.
type Proto uint8

// The protocols new entries are counted by.
const (
	ProtoTCP Proto = iota
	ProtoUDP
	ProtoICMP
	ProtoOther
)

// NumProtos is the number of Proto values.
const NumProtos = 4

// ProtoOf groups an IP protocol number.
func ProtoOf(p uint8) Proto {
	switch p {
	case 6:
		return ProtoTCP
	case 17, 136:
		return ProtoUDP
	case 1, 58:
		return ProtoICMP
	}
	return ProtoOther
}

// Proto is the protocol of the class's entries.
func (c Class) Proto() Proto {
	switch c {
	case ClassTCPDone, ClassTCPLastAck, ClassTCPReset, ClassTCPUnanswered, ClassTCPHalfOpen, ClassTCPOpen:
		return ProtoTCP
	case ClassUDPSingle, ClassUDPStream:
		return ProtoUDP
	case ClassICMP:
		return ProtoICMP
	}
	return ProtoOther
}

// Classes are the classes entries of protocol p end in.
func (p Proto) Classes() []Class {
	switch p {
	case ProtoTCP:
		return []Class{ClassTCPDone, ClassTCPLastAck, ClassTCPReset, ClassTCPUnanswered, ClassTCPHalfOpen, ClassTCPOpen}
	case ProtoUDP:
		return []Class{ClassUDPSingle, ClassUDPStream}
	case ProtoICMP:
		return []Class{ClassICMP}
	}
	return []Class{ClassOther}
}

// String names the protocol as the story says it: "TCP", "UDP".
func (p Proto) String() string {
	switch p {
	case ProtoTCP:
		return "TCP"
	case ProtoUDP:
		return "UDP"
	case ProtoICMP:
		return "ICMP"
	}
	return "another protocol"
}

// ProtoName is the name conntrack(8) gives protocol p ("tcp"), false
// for a protocol it shows by number.
func ProtoName(p int) (string, bool) {
	name, ok := protoNames[p]
	return name, ok
}

// ProtoNamed is the protocol conntrack(8) calls name, in any case.
func ProtoNamed(name string) (uint8, bool) {
	for n, s := range protoNames {
		if strings.EqualFold(name, s) {
			return uint8(n), true
		}
	}
	return 0, false
}

var protoNames = map[int]string{1: "icmp", 6: "tcp", 17: "udp", 58: "icmpv6", 132: "sctp", 136: "udplite", 33: "dccp", 47: "gre"}
