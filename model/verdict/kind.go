package verdict

import (
	"fmt"
	"strings"
)

// Severity orders verdicts.
type Severity int

// Severities, least severe first.
const (
	SevOK Severity = iota
	SevWarn
	SevCrit
)

// severityNames are the severities as JSON and the report say them.
var severityNames = [...]string{SevOK: "ok", SevWarn: "warning", SevCrit: "critical"}

// MarshalText writes the severity as its word: "critical".
func (s Severity) MarshalText() ([]byte, error) {
	if s < 0 || int(s) >= len(severityNames) {
		return nil, fmt.Errorf("severity %d: not one of tablefull's", int(s))
	}
	return []byte(severityNames[s]), nil
}

// UnmarshalText reads the word MarshalText writes.
func (s *Severity) UnmarshalText(b []byte) error {
	for i, n := range severityNames {
		if n == string(b) {
			*s = Severity(i)
			return nil
		}
	}
	return fmt.Errorf("severity %q: not one of tablefull's", b)
}

// Kind names a verdict.
type Kind string

// The verdicts; model's table of kinds gives each its severity, knobs
// and rules.
const (
	OK                Kind = "OK"
	NearCap           Kind = "NEAR CAP"
	TableFull         Kind = "TABLE FULL"
	EarlyDropping     Kind = "EARLY DROP"
	HashChains        Kind = "HASH CHAINS"
	ListenOverflow    Kind = "LISTEN OVERFLOW"
	PortExhaustion    Kind = "PORT EXHAUSTION"
	NATPorts          Kind = "NAT PORTS"
	InsertClash       Kind = "INSERT CLASH"
	InvalidPackets    Kind = "INVALID"
	StaleTimeouts     Kind = "STALE TIMEOUTS"
	GCBehind          Kind = "GC BEHIND"
	DyingList         Kind = "EVENTS UNDELIVERED"
	StaleDNAT         Kind = "STALE DNAT"
	EntriesFlushed    Kind = "ENTRIES FLUSHED"
	CiliumCT          Kind = "CILIUM CT MAP"
	ZoneFull          Kind = "ZONE FULL"
	InstanceAllowance Kind = "INSTANCE ALLOWANCE"
	CPUBound          Kind = "SERVER CPU-BOUND"
	DiskBound         Kind = "DISK-BOUND"
	ClientStalled     Kind = "CLIENT STALLED ON NETWORK"
)

// Label is the kind as a Prometheus label value: "TABLE FULL" →
// "table_full".
func (k Kind) Label() string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			return r
		}
		return '_'
	}, string(k))
}
