package ruleset

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
)

// TestParseListing: every masquerade and snat rule of a real listing
// (nft's own rules and iptables-nft's, IPv4 and IPv6, ranges, prefixes,
// flags) with its chain, the narrowest first; words in a comment are not
// rules.
func TestParseListing(t *testing.T) {
	b, err := os.ReadFile("testdata/ruleset.txt")
	if err != nil {
		t.Fatal(err)
	}
	nat := Parse(b)
	var got []string
	for _, p := range nat.Pools {
		got = append(got, p.String())
	}
	want := []string{
		"snat to 127.0.0.1:20000-20007 in ip natlab post (8 ports for each source–destination pair)",
		"masquerade to :7000-7010 in ip nat POSTROUTING (11 ports for each source–destination pair)",
		"snat to 192.0.2.1:1000-1999 in inet x p (1,000 ports for each source–destination pair)",
		"masquerade to :5000-5999 in inet x p (1,000 ports for each source–destination pair)",
		"snat to [2001:db8::1]:1000-1999 in inet x p (1,000 ports for each source–destination pair)",
		"masquerade to :1024-65535 fully-random in ip natlab post (64,512 ports for each source–destination pair)",
		"snat to 10.0.0.1-10.0.0.4:1024-65535 in ip natlab post (64,512 ports for each source–destination pair; its 4 addresses take other pairs, not more of one)",
		"snat to 10.1.0.0/30:1024-65535 random,persistent in ip natlab post (64,512 ports for each source–destination pair; its 4 addresses take other pairs, not more of one)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") || nat.Note != "" {
		t.Errorf("pools:\n%s\nwant:\n%s\nnote %q", strings.Join(got, "\n"), strings.Join(want, "\n"), nat.Note)
	}
}

// TestReaderRereadsRarely: the ruleset is listed at most every
// RereadEvery, and a listing that fails is said, not taken for no NAT.
func TestReaderRereadsRarely(t *testing.T) {
	calls := 0
	r := &Reader{List: func(context.Context) ([]byte, error) {
		calls++
		if calls == 1 {
			return nil, errors.New("nft list ruleset: permission denied")
		}
		return []byte("table ip t {\n\tchain c {\n\t\tmasquerade\n\t}\n}\n"), nil
	}}
	t0 := time.Unix(1000, 0)
	if n := r.Read(t0); n.Note == "" || len(n.Pools) != 0 {
		t.Errorf("a failed listing: %+v", n)
	}
	if r.Read(t0.Add(time.Second)); calls != 1 {
		t.Errorf("listed %d times within %s", calls, RereadEvery)
	}
	n := r.Read(t0.Add(RereadEvery))
	if p, ok := n.Narrowest(); calls != 2 || !ok || p.Tuples() != 64512 {
		t.Errorf("after %s: %d listings, %+v", RereadEvery, calls, n)
	}
}

// TestLimitedListing: a listing past the bound is cut, not held whole.
func TestLimitedListing(t *testing.T) {
	var b strings.Builder
	l := &limited{w: &b, n: 5}
	if n, err := l.Write([]byte("0123456789")); n != 10 || err != nil || b.String() != "01234" {
		t.Errorf("wrote %d %v %q", n, err, b.String())
	}
	_ = model.MaxNATPools
}
