package entry

import (
	"math/rand/v2"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/tablefull/tablefull/model"
)

// TestEntryFilter: conntrack(8)'s options read and checked, an address or
// a CIDR, each matching what conntrack -L would list, and written back
// as conntrack(8) takes them.
func TestEntryFilter(t *testing.T) {
	dnat := model.Flow{Proto: 17, Src: netip.MustParseAddr("10.0.0.5"), Dst: netip.MustParseAddr("10.96.0.10"), SrcPort: 40000, DstPort: 53, TCPState: -1,
		ReplySrc: netip.MustParseAddr("10.80.0.2"), ReplyDst: netip.MustParseAddr("10.0.0.5"), ReplySrcPort: 53, ReplyDstPort: 40000}
	est := model.Flow{Proto: 6, Src: netip.MustParseAddr("10.0.0.5"), Dst: netip.MustParseAddr("10.0.0.9"), SrcPort: 40001, DstPort: 80, TCPState: model.TCPEstablished, Zone: 3, Mark: 0x10, Timeout: 431990}
	for _, c := range []struct {
		args        FilterArgs
		str         string
		dnat, est   bool
		errContains string
	}{
		{FilterArgs{}, "", true, true, ""},
		{FilterArgs{"proto": "udp", "reply-src": "10.80.0.2"}, "-p udp --reply-src 10.80.0.2", true, false, ""},
		{FilterArgs{"src": "10.0.0.0/24", "dport": "80"}, "--src 10.0.0.0/24 --dport 80", false, true, ""},
		{FilterArgs{"state": "established", "zone": "3", "mark": "0x10"}, "--state ESTABLISHED --zone 3 --mark 16", false, true, ""},
		{FilterArgs{"proto": "6", "dst": "10.96.0.10"}, "-p tcp --dst 10.96.0.10", false, false, ""},
		{FilterArgs{"reply-dst": "10.0.0.5", "sport": "40000"}, "--reply-dst 10.0.0.5 --sport 40000", true, false, ""},
		{FilterArgs{"proto": "tcp", "state": "ESTABLISHED", "timeout-over": "65"}, "-p tcp --state ESTABLISHED --timeout-over 65", false, true, ""},
		{FilterArgs{"timeout-over": "431990"}, "--timeout-over 431990", false, false, ""},
		{FilterArgs{"timeout-over": "-1"}, "", false, false, "--timeout-over"},
		{FilterArgs{"dport": "0"}, "", false, false, "--dport 0: not a port (1–65535)"},
		{FilterArgs{"dport": "70000"}, "", false, false, "--dport 70000: not a port (1–65535)"},
		{FilterArgs{"dport": "abc"}, "", false, false, "--dport abc: not a port (1–65535)"},
		{FilterArgs{"src": "999.1.1.1"}, "", false, false, "--src 999.1.1.1: not an address (10.0.0.1, fd00::1)"},
		{FilterArgs{"mark": "0/0xffffffff"}, "--mark 0/0xffffffff", true, false, ""},
		{FilterArgs{"mark": "0x10/0xf0"}, "--mark 16/0xf0", false, true, ""},
		{FilterArgs{"mark": "0x10/x"}, "", false, false, "--mark 0x10/x: not a mark"},
		{FilterArgs{"state": "LISTEN"}, "--state SYN_SENT2", false, false, ""},
		{FilterArgs{"state": "LISTENING"}, "", false, false, "not a TCP state"},
		{FilterArgs{"status": "ASSURED"}, "--status ASSURED", false, false, ""},
		{FilterArgs{"status": "unreplied"}, "--status UNREPLIED", true, true, ""},
		{FilterArgs{"status": "UNSET"}, "", false, false, "--status UNSET: not a status"},
		{FilterArgs{"dst-nat": AnyAddress}, "--dst-nat", true, false, ""},
		{FilterArgs{"dst-nat": "10.80.0.2"}, "--dst-nat 10.80.0.2", true, false, ""},
		{FilterArgs{"dst-nat": "10.80.0.3"}, "--dst-nat 10.80.0.3", false, false, ""},
		{FilterArgs{"src-nat": AnyAddress}, "--src-nat", false, false, ""},
		{FilterArgs{"any-nat": AnyAddress}, "--any-nat", true, false, ""},
		{FilterArgs{"any-nat": "nat"}, "", false, false, "--any-nat nat: not an address"},
		{FilterArgs{"family": "ipv6"}, "-f ipv6", false, false, ""},
		{FilterArgs{"family": "ipv4"}, "-f ipv4", true, true, ""},
		{FilterArgs{"family": "ipx"}, "", false, false, "--family ipx: not a family"},
		{FilterArgs{"reply-port-src": "53"}, "--reply-port-src 53", true, false, ""},
		{FilterArgs{"orig-port-dst": "80"}, "--dport 80", false, true, ""},
		{FilterArgs{"orig-zone": "3"}, "--orig-zone 3", false, false, ""},
		{FilterArgs{"label": "web"}, "-l web", false, false, ""}, // not looked up in connlabel.conf: it matches nothing
		{FilterArgs{"label": "we\x1bb"}, "", false, false, "--label we"},
		{FilterArgs{"src": "10.0.0.0/99"}, "", false, false, "--src 10.0.0.0/99: not an address/prefix"},
		{FilterArgs{"proto": "\x1b[31m"}, "", false, false, "not a protocol"},
		{FilterArgs{"zone": "65536"}, "", false, false, "--zone"},
		{FilterArgs{"orig-src": "10.0.0.5"}, "--src 10.0.0.5", true, true, ""},
		{FilterArgs{"origin": "1.2.3.4"}, "", false, false, "no option --origin"},
	} {
		f, err := ParseFilter(c.args)
		if c.errContains != "" {
			if err == nil || !strings.Contains(err.Error(), c.errContains) || strings.Contains(err.Error(), "\x1b") || strings.Contains(err.Error(), "strconv") || strings.Contains(err.Error(), "Parse") {
				t.Errorf("%v: error %v, want one saying %q, sanitised", c.args, err, c.errContains)
			}
			continue
		}
		if err != nil || f.String() != c.str || f.Match(dnat) != c.dnat || f.Match(est) != c.est {
			t.Errorf("%v: %q (err %v), matches the DNAT %v, the established %v; want %q %v %v", c.args, f.String(), err, f.Match(dnat), f.Match(est), c.str, c.dnat, c.est)
		}
	}
}

// TestEntryListKeepsWhatAWholeSortWould: over random entries, the
// bounded list's rows are the whole sort's first rows, for every column
// and both directions, and its counts are of every match.
func TestEntryListKeepsWhatAWholeSortWould(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var all []model.Flow
	for range 2000 {
		all = append(all, model.Flow{Proto: []uint8{6, 17}[r.IntN(2)], Src: netip.AddrFrom4([4]byte{10, 0, 0, byte(r.IntN(8))}), Dst: netip.AddrFrom4([4]byte{10, 1, 0, byte(r.IntN(8))}),
			SrcPort: uint16(r.IntN(50)), DstPort: uint16(r.IntN(5)), TCPState: []int{-1, model.TCPEstablished, 7}[r.IntN(3)], Timeout: uint32(r.IntN(100)),
			Status: uint32(r.IntN(8)), Packets: [2]uint64{uint64(r.IntN(9)), 0}, Bytes: [2]uint64{uint64(r.IntN(900)), 0}})
	}
	filter, _ := ParseFilter(FilterArgs{"src": "10.0.0.0/30"})
	for _, col := range Sorts {
		for _, desc := range []bool{false, true} {
			l, err := NewList(filter, col, desc, 25)
			if err != nil {
				t.Fatal(err)
			}
			var want []model.Flow
			established := 0
			for _, f := range all {
				l.Add(f)
				if filter.Match(f) {
					want = append(want, f)
					if f.TCPState == model.TCPEstablished {
						established++
					}
				}
			}
			slices.SortStableFunc(want, func(a, b model.Flow) int {
				if desc {
					return -compareEntries(a, b, columnOrder(col))
				}
				return compareEntries(a, b, columnOrder(col))
			})
			if got := l.Rows(); !slices.Equal(got, want[:25]) || l.Matched != len(want) || l.Established != established {
				t.Errorf("sorted by %s (desc %v): %d matched, %d established; rows differ from the whole sort's: %v", col, desc, l.Matched, l.Established, !slices.Equal(got, want[:25]))
			}
		}
	}
	if _, err := NewList(filter, "colour", false, 5); err == nil {
		t.Error("a column that is not one sorts")
	}
	if l, _ := NewList(filter, "", false, 1<<30); l.Limit != MaxRows {
		t.Errorf("a limit of %d kept", l.Limit)
	}
}

// TestEntryFilterWords: a filter typed as conntrack(8) takes it, long or
// short, with = or a space, reads back to the same filter; what is not
// an option, or lacks its value, is refused.
func TestEntryFilterWords(t *testing.T) {
	for _, c := range []struct{ text, want, err string }{
		{"-p udp --reply-src 10.80.0.2", "-p udp --reply-src 10.80.0.2", ""},
		{"--proto=tcp -d 10.0.0.0/8 --state time_wait", "-p tcp --dst 10.0.0.0/8 --state TIME_WAIT", ""},
		{"", "", ""},
		{"udp", "", "is not an option"},
		{"--dport", "", "needs a value"},
		{"-x 5", "", "is not an option"},
		{"-u SEEN_REPLY -m 1 -f ipv4", "-f ipv4 --status SEEN_REPLY --mark 1", ""},
		{"-n -g 10.1.1.1 -w 3", "--zone 3 --src-nat --dst-nat 10.1.1.1", ""},
		{"-j", "--any-nat", ""},
		{"--orig-src 10.0.0.1 --orig-port-dst 53 --reply-port-dst 9 --orig-zone 2 --reply-zone=4", "--src 10.0.0.1 --dport 53 --reply-port-dst 9 --orig-zone 2 --reply-zone 4", ""},
		{"-p tcp --state LISTEN", "-p tcp --state SYN_SENT2", ""},
		{"-m 0/0xffffffff", "--mark 0/0xffffffff", ""},
		{"-l web --label=db,web", "-l web,db", ""},
		{"-l 'web'", "", "not a label's name"},
	} {
		args, err := FilterWords(c.text)
		if err == nil {
			var f Filter
			if f, err = ParseFilter(args); err == nil && f.String() != c.want {
				t.Errorf("%q: %q, want %q", c.text, f.String(), c.want)
			}
		}
		if (err != nil) != (c.err != "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("%q: error %v, want %q", c.text, err, c.err)
		}
	}
}
