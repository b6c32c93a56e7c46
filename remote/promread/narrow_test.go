package promread

import (
	"errors"
	"testing"
)

// TestNarrowing: what the operator types after / becomes matchers
// written anew (never as typed), a bare word matches the instance in any
// case, and what cannot be a matcher is refused with the words to type.
func TestNarrowing(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"  ", ""},
		{"web-3", `instance=~"(?i).*web-3.*"`},
		{"10.0.0.1", `instance=~"(?i).*10\\.0\\.0\\.1.*"`},
		{`cluster=eu-1`, `cluster="eu-1"`},
		{`cluster="eu-1", role=~"edge.*"`, `cluster="eu-1",role=~"edge.*"`},
		{`zone != 'z 1'`, `zone!="z 1"`},
		{`env!~"dev|test",job="a\"b"`, `env!~"dev|test",job="a\"b"`},
		{`a="} or vector(1) or {b=\"c"`, `a="} or vector(1) or {b=\"c"`},
	} {
		got, err := Narrowing(c.in)
		if err != nil || got != c.want {
			t.Errorf("Narrowing(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{`=x`, `cluster=`, `cluster= ,`, `9a=b`, `a=~"("`, `a="open`, `a='open`, `a==b`, `a=b c`} {
		if got, err := Narrowing(in); !errors.Is(err, ErrSelector) {
			t.Errorf("Narrowing(%q) = %q, %v; want refused", in, got, err)
		}
	}
}
