// Package ruleset reads this network namespace's ruleset — nftables' own
// rules and iptables-nft's — from `nft list ruleset`: the source NAT's
// pools, read only when entries failed to insert (a NAT with no free
// source port drops the packet); whether a DNAT target is still named
// (Names); and the Services kube-proxy wrote, IPv4 and IPv6
// (ParseServices, with `iptables-save -t nat` and `ip6tables-save -t nat`
// for its iptables mode's comments). It never changes the ruleset.
package ruleset

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tablefull/tablefull/model"
)

// RereadEvery is how often the ruleset is read at most, however often
// entries fail to insert.
const RereadEvery = 10 * time.Second

// maxListing bounds the listing read: a ruleset's text beyond it is left
// out (and said).
const maxListing = 8 << 20

// Reader reads the source NAT, at most every RereadEvery.
type Reader struct {
	// List prints the ruleset as `nft list ruleset` does; tests replace it.
	List func(ctx context.Context) ([]byte, error)
	last time.Time
	have *model.NAT
}

// NewReader reads through the nft program.
func NewReader() *Reader { return &Reader{List: List} }

// Read is the source NAT at now: read again once RereadEvery passed.
func (r *Reader) Read(now time.Time) *model.NAT {
	if r.have != nil && now.Sub(r.last) < RereadEvery && now.After(r.last) {
		return r.have
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	nat := &model.NAT{}
	if out, err := r.List(ctx); err != nil {
		nat.Note = err.Error()
	} else {
		*nat = Parse(out)
	}
	r.last, r.have = now, nat
	return nat
}

// List prints this namespace's ruleset as `nft list ruleset` does,
// bounded.
func List(ctx context.Context) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "nft", "list", "ruleset")
	var out bytes.Buffer
	cmd.Stdout = &limited{w: &out, n: maxListing}
	if err := cmd.Run(); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return nil, errors.New("nft is not installed: the ruleset was not read")
		}
		return nil, fmt.Errorf("nft list ruleset: %w", err)
	}
	return out.Bytes(), nil
}

// ListIptablesNAT prints iptables' nat tables as `iptables-save -t nat`
// and then `ip6tables-save -t nat` do, bounded: kube-proxy's iptables mode
// names its Services in comments there, IPv6 ones in the second. A
// family that cannot be listed (no ip6tables, no nat table) leaves the
// other's; an error only when neither is.
func ListIptablesNAT(ctx context.Context) ([]byte, error) {
	var out bytes.Buffer
	var errs []error
	for _, tool := range []string{"iptables-save", "ip6tables-save"} {
		cmd := exec.CommandContext(ctx, tool, "-t", "nat")
		cmd.Stdout = &limited{w: &out, n: maxListing - out.Len()}
		if err := cmd.Run(); err != nil {
			errs = append(errs, fmt.Errorf("%s -t nat: %w", tool, err))
		}
	}
	if len(errs) == 2 {
		return nil, errors.Join(errs...)
	}
	return out.Bytes(), nil
}

// HasDNAT reports whether a listing holds a DNAT statement: where none
// does, the entries' DNAT is not the ruleset's to name (IPVS, a BPF
// program), so a target it does not name is not gone.
func HasDNAT(listing []byte) bool { return dnatWord.Match(listing) }

// dnatWord is a dnat statement: the word, not a chain named after it.
var dnatWord = regexp.MustCompile(`(^|\s)dnat\s`)

// limited keeps at most n bytes and drops the rest.
type limited struct {
	w io.Writer
	n int
}

func (l *limited) Write(p []byte) (int, error) {
	keep := p[:min(len(p), max(0, l.n))]
	l.n -= len(keep)
	if _, err := l.w.Write(keep); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Parse reads the masquerade and snat rules of a listing, the narrowest
// model.MaxNATPools kept.
func Parse(listing []byte) model.NAT {
	var nat model.NAT
	var table, chain string
	sc := bufio.NewScanner(bytes.NewReader(listing))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		f := strings.Fields(stripComment(sc.Text()))
		switch {
		case len(f) >= 4 && f[0] == "table" && f[3] == "{":
			table, chain = f[1]+" "+f[2], ""
		case len(f) >= 3 && f[0] == "chain" && f[2] == "{":
			chain = f[1]
		default:
			if p, ok := statement(f); ok {
				p.Chain = strings.TrimSpace(table + " " + chain)
				nat.Pools = append(nat.Pools, p)
			}
		}
	}
	if sc.Err() != nil {
		nat.Note = "the listing's lines are too long: " + sc.Err().Error()
	}
	sort.SliceStable(nat.Pools, func(i, j int) bool { return nat.Pools[i].Tuples() < nat.Pools[j].Tuples() })
	nat.Pools = nat.Pools[:min(len(nat.Pools), model.MaxNATPools)]
	return nat
}

// stripComment cuts a rule's comment "…": its words are not statements.
func stripComment(line string) string {
	if i := strings.Index(line, ` comment "`); i >= 0 {
		return line[:i]
	}
	return line
}

// statement finds "snat [ip|ip6] to TARGET [FLAGS]" or "masquerade [to
// :PORTS] [FLAGS]" among a rule's words.
func statement(f []string) (model.NATPool, bool) {
	for i, w := range f {
		if w != "snat" && w != "masquerade" {
			continue
		}
		p := model.NATPool{Rule: w}
		rest := f[i+1:]
		if len(rest) > 0 && (rest[0] == "ip" || rest[0] == "ip6") {
			rest = rest[1:]
		}
		if len(rest) >= 2 && rest[0] == "to" {
			addr, ports := target(rest[1])
			if addr != "" {
				p.Addrs = []string{addr}
			}
			p.Ports = ports
			rest = rest[2:]
		}
		if len(rest) > 0 {
			p.Flags = strings.Split(rest[0], ",")
			p.Flags = p.Flags[:min(len(p.Flags), model.MaxNATFlags)]
		}
		return p, true
	}
	return model.NATPool{}, false
}

// target splits "a[-b][:p[-q]]", "[v6]:p-q" or ":p-q" into its address
// and its ports (zero when none).
func target(t string) (string, [2]uint16) {
	addr, ports := t, ""
	switch {
	case strings.HasPrefix(t, "["):
		if end := strings.Index(t, "]"); end > 0 {
			addr, ports = t[1:end], strings.TrimPrefix(t[end+1:], ":")
		}
	case strings.Count(t, ":") == 1:
		addr, ports, _ = strings.Cut(t, ":")
	}
	lo, hi, ranged := strings.Cut(ports, "-")
	a, errA := strconv.ParseUint(lo, 10, 16)
	b, errB := strconv.ParseUint(hi, 10, 16)
	switch {
	case errA != nil:
		return addr, [2]uint16{}
	case !ranged:
		return addr, [2]uint16{uint16(a), uint16(a)}
	case errB != nil || b < a:
		return addr, [2]uint16{}
	}
	return addr, [2]uint16{uint16(a), uint16(b)}
}
