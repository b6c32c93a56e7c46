// Package entry is the table's entries one by one, as conntrack(8) shows
// them: a filter in its vocabulary, a sorted list of a dump bounded by the
// rows a screen keeps, a follow of the event stream, and the checks a
// delete passes first.
package entry

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"

	"github.com/tablefull/tablefull/model/safe"
)

// Filter selects conntrack entries in conntrack(8)'s own vocabulary, the
// filter parameters of its manual: -p, -f, -s/--src, -d/--dst,
// -r/--reply-src, -q/--reply-dst (an address or a CIDR), --sport,
// --dport, --reply-port-src, --reply-port-dst, --state, -u/--status,
// -m/--mark (with a mask), -w/--zone, --orig-zone, --reply-zone,
// -n/--src-nat, -g/--dst-nat, -j/--any-nat (each with an address or
// without), -l/--label (names, comma-separated or given again); and one
// word of ours, --timeout-over (more seconds left than
// that: entries that keep a timeout given before their hold was lowered,
// which conntrack's filter cannot name). A field left unset matches every
// entry. It arrives from a command line or a control request, so
// ParseFilter checks every value before it is used.
type Filter struct {
	Proto                        uint8 // 0: any
	Family                       uint8 // 4 or 6; 0: any
	Src, Dst, ReplySrc, ReplyDst netip.Prefix
	SPort, DPort                 uint16 // 0: any
	ReplySPort, ReplyDPort       uint16 // 0: any
	State                        string // a TCP state's name ("": any)
	// Status are the status bits an entry has all of; Unreplied asks
	// for no reply seen (conntrack's "-u UNREPLIED").
	Status    uint32
	Unreplied bool
	Zone      *uint32
	// OrigZone and ReplyZone are a zone of one direction only (a zone
	// set with --orig-zone or --reply-zone, which --zone does not match).
	OrigZone, ReplyZone *uint32
	Mark                *uint32
	MarkMask            uint32 // 0: the whole mark
	// SrcNAT, DstNAT and AnyNAT select NATed entries: Set, and where Addr
	// is valid, NATed to that address.
	SrcNAT, DstNAT, AnyNAT NATFilter
	TimeoutOver            *uint32 // seconds left above which an entry matches
	// Labels are -l's names, an entry matching with every one of them
	// set; their bits are the host's connlabel.conf's (WithLabelBits),
	// read where the entries are.
	Labels    []string
	labelBits []uint
}

// NATFilter is -n, -g or -j: entries NATed that way, to Addr if valid.
type NATFilter struct {
	Set  bool
	Addr netip.Addr
}

// FilterArgs are a filter's values as typed, by conntrack(8)'s long
// option names ("proto", "src", …, "mark"); "" leaves one unset. A NAT
// option without an address is AnyAddress.
type FilterArgs map[string]string

// AnyAddress is the value of a NAT option given without an address.
const AnyAddress = "*"

// filterAliases are conntrack(8)'s other long names of an option.
var filterAliases = map[string]string{"orig-src": "src", "orig-dst": "dst", "protonum": "proto",
	"orig-port-src": "sport", "orig-port-dst": "dport"}

// entryFilterKeys are the options a FilterArgs may hold.
var entryFilterKeys = []string{"proto", "family", "src", "dst", "reply-src", "reply-dst", "sport", "dport",
	"reply-port-src", "reply-port-dst", "state", "status", "zone", "orig-zone", "reply-zone", "mark",
	"src-nat", "dst-nat", "any-nat", "label", "timeout-over"}

// ErrBadFilter is a filter value that is not one conntrack(8) takes.
var ErrBadFilter = errors.New("bad entry filter")

// ParseFilter checks and reads a filter's values.
func ParseFilter(args FilterArgs) (Filter, error) {
	var f Filter
	for k, v := range args {
		if v == "" {
			continue
		}
		if a, ok := filterAliases[k]; ok {
			k = a
		}
		if !slices.Contains(entryFilterKeys, k) {
			return f, fmt.Errorf("%w: no option --%s", ErrBadFilter, safe.Text(k, 40))
		}
		if err := f.set(k, v); err != nil { // said as conntrack(8) would: the option, the value, what it is not
			return f, fmt.Errorf("%w: --%s %s: %w", ErrBadFilter, k, safe.Text(v, 80), err)
		}
	}
	return f, nil
}
