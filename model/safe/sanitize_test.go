package safe

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSanitize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{"vda", 10, "vda"},
		{"héllo wörld", 20, "héllo wörld"},
		{"\x1b]52;c;aGk=\x07", 40, `\x1b]52;c;aGk=\x07`},
		{"\x1b]0;pwned\x07host", 40, `\x1b]0;pwned\x07host`},
		{"a\x1b[2J\x1b[Hb", 40, `a\x1b[2J\x1b[Hb`},
		{"x\u009b31mred", 40, `x\u009b31mred`},
		{"abc\u202edcba", 40, `abc\u202edcba`},
		{"line1\nline2\ttab", 40, `line1\x0aline2\x09tab`},
		{"bad\xffutf8", 40, `bad\xffutf8`},
		{"0123456789", 5, "0123…"},
		{"0123456789", 10, "0123456789"},
		{"\x1b\x1b\x1b", 6, `\x1b…`},
	} {
		if got := Text(tc.in, tc.max); got != tc.want {
			t.Errorf("Sanitize(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
}

// FuzzSanitize: whatever goes in, nothing that a terminal acts on comes
// out, and the result stays within max runes.
func FuzzSanitize(f *testing.F) {
	f.Add("\x1b]52;c;x\x07", 20)
	f.Add("\u202e\u0085é\xff", 3)
	f.Fuzz(func(t *testing.T, s string, max int) {
		max = 1 + (max&0xffff)%300
		got := Text(s, max)
		if !clean(got) || strings.ContainsRune(got, 0x1b) {
			t.Fatalf("Sanitize(%q) = %q holds control text", s, got)
		}
		if n := utf8.RuneCountInString(got); n > max {
			t.Fatalf("Sanitize(%q, %d) has %d runes", s, max, n)
		}
	})
}
