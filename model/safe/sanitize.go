package safe

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxText bounds a foreign string on screen, in a report or a file name's
// source: enough for any kernel log line or error, far less than a line
// of garbage.
const MaxText = 512

// Sanitize makes text from outside the process (a remote stream, a
// recording, a file, a command's stderr, a Prometheus label) safe to
// print on a terminal or put in a report: every control character (C0,
// DEL, C1, so ESC and every escape sequence it would start), bidi
// override and isolate, line or paragraph separator and byte of invalid
// UTF-8 is shown escaped ("\x1b", "\u202e"), and the text is cut to at
// most max runes, ending in "…". It is the one function every foreign
// string passes through on its way to a view.
func Text(s string, max int) string {
	if max <= 0 {
		max = MaxText
	}
	if clean(s) && utf8.RuneCountInString(s) <= max {
		return s
	}
	var b strings.Builder
	n := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		var piece string
		switch {
		case r == utf8.RuneError && size == 1:
			piece = fmt.Sprintf(`\x%02x`, s[i])
		case r < 0x20 || r == 0x7f:
			piece = fmt.Sprintf(`\x%02x`, r)
		case unsafeRune(r):
			piece = fmt.Sprintf(`\u%04x`, r)
		default:
			piece = s[i : i+size]
		}
		pieceRunes := utf8.RuneCountInString(piece)
		if n+pieceRunes > max-1 && i+size < len(s) || n+pieceRunes > max {
			b.WriteString("…")
			return b.String()
		}
		b.WriteString(piece)
		n += pieceRunes
		i += size
	}
	return b.String()
}

// clean reports whether s needs no escaping: the common case, checked
// without allocating.
func clean(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || unsafeRune(r) {
			return false
		}
		i += size
	}
	return true
}

// unsafeRune reports whether r is a C1 control, a bidi control or a line
// or paragraph separator: characters that reorder, hide or break what a
// terminal or a page shows.
func unsafeRune(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f: // C1, e.g. CSI as one character
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f: // arabic letter mark, LRM, RLM
		return true
	case r >= 0x202a && r <= 0x202e: // embeddings and overrides
		return true
	case r >= 0x2066 && r <= 0x2069: // isolates
		return true
	case r == 0x2028, r == 0x2029, r == 0xfeff:
		return true
	}
	return false
}
