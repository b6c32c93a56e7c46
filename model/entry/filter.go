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
	"strconv"
	"strings"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/safe"
)

// Filter selects conntrack entries in conntrack(8)'s own vocabulary:
// -p, --src, --dst, --reply-src, --reply-dst (an address or a CIDR),
// --sport, --dport, --state, --zone, --mark; and one word of ours,
// --timeout-over (more seconds left than that: entries that keep a
// timeout given before their hold was lowered, which conntrack's filter
// cannot name). A field left unset matches every entry. It arrives from a command line or a control request, so
// ParseFilter checks every value before it is used.
type Filter struct {
	Proto                        uint8 // 0: any
	Src, Dst, ReplySrc, ReplyDst netip.Prefix
	SPort, DPort                 uint16 // 0: any
	State                        string // a TCP state's name ("": any)
	Zone, Mark                   *uint32
	TimeoutOver                  *uint32 // seconds left above which an entry matches
}

// FilterArgs are a filter's values as typed, by conntrack(8)'s
// long option names ("proto", "src", …, "mark"); "" leaves one unset.
type FilterArgs map[string]string

// entryFilterKeys are the options an FilterArgs may hold.
var entryFilterKeys = []string{"proto", "src", "dst", "reply-src", "reply-dst", "sport", "dport", "state", "zone", "mark", "timeout-over"}

// ErrBadFilter is a filter value that is not one conntrack(8) takes.
var ErrBadFilter = errors.New("bad entry filter")

// ParseFilter checks and reads a filter's values.
func ParseFilter(args FilterArgs) (Filter, error) {
	var f Filter
	for k, v := range args {
		if v == "" {
			continue
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

func (f *Filter) set(k, v string) error {
	var err error
	switch k {
	case "proto":
		f.Proto, err = protoNumber(v)
	case "src":
		f.Src, err = prefixOf(v)
	case "dst":
		f.Dst, err = prefixOf(v)
	case "reply-src":
		f.ReplySrc, err = prefixOf(v)
	case "reply-dst":
		f.ReplyDst, err = prefixOf(v)
	case "sport", "dport":
		n, perr := strconv.ParseUint(v, 10, 16)
		if perr != nil || n == 0 {
			err = errors.New("not a port (1–65535)")
		}
		if k == "sport" {
			f.SPort = uint16(n)
		} else {
			f.DPort = uint16(n)
		}
	case "state":
		if i := slices.Index(model.TCPStates, strings.ToUpper(v)); i > 0 {
			f.State = model.TCPStates[i]
		} else {
			err = fmt.Errorf("not a TCP state (%s)", strings.Join(model.TCPStates[1:], ", "))
		}
	case "zone", "mark", "timeout-over":
		var n uint64
		bits := 32
		if k == "zone" {
			bits = 16
		}
		if n, err = strconv.ParseUint(v, 0, bits); err != nil {
			err = fmt.Errorf("not a number of %d bits (decimal, or 0x hex)", bits)
		} else {
			u := uint32(n)
			switch k {
			case "zone":
				f.Zone = &u
			case "mark":
				f.Mark = &u
			default:
				f.TimeoutOver = &u
			}
		}
	}
	return err
}

// protoNumber reads a protocol's name or number.
func protoNumber(v string) (uint8, error) {
	if n, ok := model.ProtoNamed(v); ok {
		return n, nil
	}
	n, err := strconv.ParseUint(v, 10, 8)
	if err != nil || n == 0 {
		return 0, errors.New("not a protocol")
	}
	return uint8(n), nil
}

// prefixOf reads an address (a one-address prefix) or a CIDR.
func prefixOf(v string) (netip.Prefix, error) {
	if strings.Contains(v, "/") {
		p, err := netip.ParsePrefix(v)
		if err != nil {
			return netip.Prefix{}, errors.New("not an address/prefix (10.0.0.0/8, fd00::/64)")
		}
		return p.Masked(), nil
	}
	a, err := netip.ParseAddr(v)
	if err != nil {
		return netip.Prefix{}, errors.New("not an address (10.0.0.1, fd00::1)")
	}
	return netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()), nil
}

// Match reports whether e passes the filter.
func (f Filter) Match(e model.Flow) bool {
	in := func(p netip.Prefix, a netip.Addr) bool { return !p.IsValid() || p.Contains(a.Unmap()) }
	switch {
	case f.Proto != 0 && e.Proto != f.Proto,
		!in(f.Src, e.Src), !in(f.Dst, e.Dst), !in(f.ReplySrc, e.ReplySrc), !in(f.ReplyDst, e.ReplyDst),
		f.SPort != 0 && e.SrcPort != f.SPort, f.DPort != 0 && e.DstPort != f.DPort,
		f.State != "" && (e.TCPState < 0 || e.TCPState >= len(model.TCPStates) || model.TCPStates[e.TCPState] != f.State),
		f.Zone != nil && uint32(e.Zone) != *f.Zone, f.Mark != nil && e.Mark != *f.Mark,
		f.TimeoutOver != nil && e.Timeout <= *f.TimeoutOver:
		return false
	}
	return true
}

// String is the filter as conntrack(8) would take it: "-p udp
// --reply-src 10.80.0.2" (with --timeout-over, as tablefull entries
// takes it); "" matches every entry.
func (f Filter) String() string {
	var parts []string
	add := func(opt, v string) { parts = append(parts, opt+" "+v) }
	if f.Proto != 0 {
		name, ok := model.ProtoName(int(f.Proto))
		if !ok {
			name = strconv.Itoa(int(f.Proto))
		}
		add("-p", name)
	}
	for _, p := range []struct {
		opt string
		v   netip.Prefix
	}{{"--src", f.Src}, {"--dst", f.Dst}, {"--reply-src", f.ReplySrc}, {"--reply-dst", f.ReplyDst}} {
		if p.v.IsValid() {
			add(p.opt, strings.TrimSuffix(p.v.String(), "/"+strconv.Itoa(p.v.Addr().BitLen())))
		}
	}
	if f.SPort != 0 {
		add("--sport", strconv.Itoa(int(f.SPort)))
	}
	if f.DPort != 0 {
		add("--dport", strconv.Itoa(int(f.DPort)))
	}
	if f.State != "" {
		add("--state", f.State)
	}
	if f.Zone != nil {
		add("--zone", strconv.FormatUint(uint64(*f.Zone), 10))
	}
	if f.Mark != nil {
		add("--mark", strconv.FormatUint(uint64(*f.Mark), 10))
	}
	if f.TimeoutOver != nil {
		add("--timeout-over", strconv.FormatUint(uint64(*f.TimeoutOver), 10))
	}
	return strings.Join(parts, " ")
}

// entryShortOptions are conntrack(8)'s one-letter names of the options.
var entryShortOptions = map[string]string{"p": "proto", "s": "src", "d": "dst", "r": "reply-src", "q": "reply-dst"}

// FilterWords reads a filter typed as conntrack(8) takes it on its
// command line ("-p udp --reply-src 10.80.0.2", "--dport=53"): an
// option and its value each, long or short. ParseFilter checks the
// values.
func FilterWords(text string) (FilterArgs, error) {
	args := FilterArgs{}
	words := strings.Fields(text)
	for i := 0; i < len(words); i++ {
		w := words[i]
		name, value, hasValue := strings.Cut(strings.TrimLeft(w, "-"), "=")
		switch {
		case strings.HasPrefix(w, "--"):
		case strings.HasPrefix(w, "-") && entryShortOptions[name] != "":
			name = entryShortOptions[name]
		default:
			return nil, fmt.Errorf("%w: %q is not an option (-p udp, --dport 53, …)", ErrBadFilter, safe.Text(w, 40))
		}
		if !hasValue {
			if i+1 >= len(words) {
				return nil, fmt.Errorf("%w: --%s needs a value", ErrBadFilter, safe.Text(name, 40))
			}
			i++
			value = words[i]
		}
		args[name] = value
	}
	return args, nil
}
