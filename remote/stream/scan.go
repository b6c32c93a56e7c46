package stream

import (
	"encoding/json"
	"unicode/utf8"
)

// scan reads the JSON our Encoder writes, byte by byte and without
// reflection: no whitespace inside a line, exact keys, integers without
// fraction or exponent, strings plain or escaped. Anything else, valid
// JSON or not, makes it fail (ok false), and the line is decoded by
// encoding/json instead (lineDecoder.decode): what scan accepts, encoding/json
// reads to the same values, so errors and odd-but-valid lines keep the
// reflection decoder's behaviour word for word.
type scan struct {
	b  []byte
	i  int
	ok bool
}

func (s *scan) fail() { s.ok, s.i = false, len(s.b) }

// peek is the next byte, 0 at the end.
func (s *scan) peek() byte {
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// expect consumes c or fails.
func (s *scan) expect(c byte) {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return
	}
	s.fail()
}

// more is called after a value inside an array or object that ends with
// end: it consumes a comma and says whether another value follows.
func (s *scan) more(end byte) bool {
	switch s.peek() {
	case ',':
		s.i++
		return s.ok
	case end:
		s.i++
		return false
	}
	s.fail()
	return false
}

// key reads a key without escapes.
func (s *scan) key() []byte {
	s.expect('"')
	start := s.i
	for s.i < len(s.b) {
		switch c := s.b[s.i]; {
		case c == '"':
			s.i++
			return s.b[start : s.i-1]
		case c == '\\' || c < 0x20 || c >= 0x80:
			s.fail()
			return nil
		}
		s.i++
	}
	s.fail()
	return nil
}

// array reads an array, calling elem positioned at each value.
func (s *scan) array(elem func()) {
	s.expect('[')
	if s.peek() == ']' {
		s.i++
		return
	}
	for s.ok {
		elem()
		if !s.more(']') {
			return
		}
	}
}

// digits reads an unsigned JSON integer: no leading zero, no fraction or
// exponent after it, no overflow past limit.
func (s *scan) digits(limit uint64) uint64 {
	start := s.i
	var v uint64
	for s.i < len(s.b) {
		c := s.b[s.i]
		if c < '0' || c > '9' {
			break
		}
		d := uint64(c - '0')
		if v > (limit-d)/10 {
			s.fail()
			return 0
		}
		v = v*10 + d
		s.i++
	}
	switch {
	case s.i == start, s.b[start] == '0' && s.i-start > 1:
		s.fail()
	case s.i < len(s.b) && (s.b[s.i] == '.' || s.b[s.i] == 'e' || s.b[s.i] == 'E'):
		s.fail()
	}
	return v
}

func (s *scan) uint() uint64 { return s.digits(^uint64(0)) }

func (s *scan) int() int64 {
	if s.peek() == '-' {
		s.i++
		return -int64(s.digits(1 << 63))
	}
	return int64(s.digits(1<<63 - 1))
}

func (s *scan) bool() bool {
	switch {
	case len(s.b)-s.i >= 4 && string(s.b[s.i:s.i+4]) == "true":
		s.i += 4
		return true
	case len(s.b)-s.i >= 5 && string(s.b[s.i:s.i+5]) == "false":
		s.i += 5
		return false
	}
	s.fail()
	return false
}

// str reads a string: a plain one is copied as it is, an escaped one (or
// one not valid UTF-8) is handed to encoding/json, which unescapes and
// repairs it as it would in the whole line.
func (s *scan) str() string {
	start, raw, plain := s.token()
	if plain {
		return string(raw)
	}
	return s.unquote(start)
}

// name is str for a value that repeats from sample to sample (a disk's
// name): a plain one seen before is the kept copy, not a new string.
// names grows to at most maxNames of at most maxNameBytes each, whatever
// a stream sends.
func (s *scan) name(names map[string]string) string {
	start, raw, plain := s.token()
	if !plain {
		return s.unquote(start)
	}
	if v, ok := names[string(raw)]; ok {
		return v
	}
	v := string(raw)
	if len(names) < maxNames && len(v) <= maxNameBytes {
		names[v] = v
	}
	return v
}

// maxNames and maxNameBytes bound the names a decoder keeps (a device's
// name is a few bytes; a longer one is decoded, not kept).
const (
	maxNames     = MaxDisks
	maxNameBytes = 64
)

// token reads a string token from its opening quote: where it starts, its
// bytes between the quotes, and whether they are the string as they are
// (no escapes, valid UTF-8).
func (s *scan) token() (start int, raw []byte, plain bool) {
	start = s.i
	s.expect('"')
	ascii, escapes := true, false
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			raw = s.b[start+1 : s.i-1]
			return start, raw, !escapes && (ascii || utf8.Valid(raw))
		case c == '\\':
			escapes = true
			s.i++ // the escaped byte is skipped; encoding/json checks the escape
		case c < 0x20:
			s.fail()
			return start, nil, false
		case c >= 0x80:
			ascii = false
		}
		s.i++
	}
	s.fail()
	return start, nil, false
}

// unquote decodes the string token from start to s.i with encoding/json.
func (s *scan) unquote(start int) string {
	var v string
	if !s.ok {
		return ""
	}
	if err := json.Unmarshal(s.b[start:s.i], &v); err != nil {
		s.fail()
	}
	return v
}

// raw returns the extent of the object or array at s.i, for a nested
// model type decoded by encoding/json (which also checks it is valid).
func (s *scan) raw() []byte {
	start, depth := s.i, 0
	if c := s.peek(); c != '{' && c != '[' {
		s.fail()
		return nil
	}
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case '"':
			for s.i++; s.i < len(s.b) && s.b[s.i] != '"'; s.i++ {
				if s.b[s.i] == '\\' {
					s.i++
				}
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				s.i++
				return s.b[start:s.i]
			}
		}
		s.i++
	}
	s.fail()
	return nil
}

// decodeRaw decodes the nested value at s.i into v with encoding/json.
func (s *scan) decodeRaw(v any) {
	if raw := s.raw(); s.ok && json.Unmarshal(raw, v) != nil {
		s.fail()
	}
}

// end accepts only trailing whitespace after the record.
func (s *scan) end() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\r', '\n':
			s.i++
		default:
			s.fail()
			return
		}
	}
}

// uints and ints read an array of exactly len(dst) integers.
func uints(s *scan, dst []uint64) { numbers(s, dst, s.uint) }

func ints(s *scan, dst []int64) { numbers(s, dst, s.int) }

func numbers[T int64 | uint64](s *scan, dst []T, read func() T) {
	s.expect('[')
	for i := range dst {
		if i > 0 {
			s.expect(',')
		}
		dst[i] = read()
	}
	s.expect(']')
}

// classUints reads a class's counts: model.NumClasses integers, or as
// many as a stream written before the later classes were added counted
// (classesBefore; the rest stay 0, as that stream never counted them
// apart).
func classUints(s *scan, dst []uint64) {
	s.expect('[')
	for i := range dst {
		if i >= classesBefore && s.peek() == ']' {
			break
		}
		if i > 0 {
			s.expect(',')
		}
		dst[i] = s.uint()
	}
	s.expect(']')
}

// classesBefore is how many classes a stream counted before tcp-reset
// and tcp-half-open had classes of their own.
const classesBefore = 7
