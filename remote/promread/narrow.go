package promread

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// scope is the label matchers every query of one view carries: the
// --selector's, joined with what the operator typed after /.
type scope string

// with is the scope joined to tablefull's own matchers, in braces.
func (s scope) with(matchers string) string {
	return "{" + joinMatchers(matchers, string(s)) + "}"
}

// joinMatchers joins two lists of matchers, either possibly empty.
func joinMatchers(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "," + b
}

// labelName is a Prometheus label name.
var labelName = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*`)

// Narrowing turns what the operator typed after / into label matchers
// the engine applies, written anew by tablefull (nothing typed reaches a
// query as typed): `cluster=eu-1, role=~"edge.*"` keeps the instances
// with those labels; a bare word keeps the instances whose name contains
// it, in any case. Values may be quoted ("…" or '…') or bare; a regular
// expression must compile (RE2, as Prometheus's). "" narrows nothing.
func Narrowing(text string) (string, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return "", nil
	}
	if !strings.ContainsAny(text, "=~") {
		return "instance=~" + strconv.Quote("(?i).*"+regexp.QuoteMeta(text)+".*"), nil
	}
	var out []string
	rest := text
	for {
		rest = strings.TrimLeft(rest, " \t,")
		if rest == "" {
			return strings.Join(out, ","), nil
		}
		m, tail, err := matcher(rest)
		if err != nil {
			return "", fmt.Errorf("%w %q: %w; want label matchers such as cluster=\"eu-1\", role=~\"edge.*\", or a word of the instance", ErrSelector, text, err)
		}
		out, rest = append(out, m), tail
	}
}

// matcher reads one matcher from the front of s and writes it anew.
func matcher(s string) (string, string, error) {
	name := labelName.FindString(s)
	if name == "" {
		return "", "", fmt.Errorf("a label name at %q", head(s))
	}
	s = strings.TrimLeft(s[len(name):], " ")
	op := ""
	for _, o := range []string{"=~", "!~", "!=", "="} {
		if strings.HasPrefix(s, o) {
			op = o
			break
		}
	}
	if op == "" {
		return "", "", fmt.Errorf("=, !=, =~ or !~ after %s", name)
	}
	s = strings.TrimLeft(s[len(op):], " ")
	value, tail, err := matcherValue(s)
	if err != nil {
		return "", "", fmt.Errorf("%s%s: %w", name, op, err)
	}
	if op == "=~" || op == "!~" {
		if _, err := regexp.Compile("^(?:" + value + ")$"); err != nil {
			return "", "", fmt.Errorf("%s%s: %w", name, op, err)
		}
	}
	return name + op + strconv.Quote(value), tail, nil
}

// matcherValue reads a quoted or bare value from the front of s.
func matcherValue(s string) (string, string, error) {
	if s == "" {
		return "", "", fmt.Errorf("a value")
	}
	switch s[0] {
	case '"', '\'':
		q := s
		if s[0] == '\'' { // Go unquotes '…' as one rune: read it as "…"
			end := strings.IndexByte(s[1:], '\'')
			if end < 0 {
				return "", "", fmt.Errorf("an unclosed quote")
			}
			return s[1 : 1+end], s[2+end:], nil
		}
		lit, err := strconv.QuotedPrefix(q)
		if err != nil {
			return "", "", fmt.Errorf("an unclosed quote")
		}
		v, _ := strconv.Unquote(lit)
		return v, s[len(lit):], nil
	}
	end := strings.IndexAny(s, ", \t")
	if end < 0 {
		end = len(s)
	}
	if end == 0 || strings.ContainsAny(s[:end], `=!~"'{}`) {
		return "", "", fmt.Errorf("a value: quote %q", s[:end])
	}
	return s[:end], s[end:], nil
}

// head is the start of s, for an error.
func head(s string) string {
	if len(s) > 16 {
		return s[:16] + "…"
	}
	return s
}
