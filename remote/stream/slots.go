package stream

import (
	"bytes"
	"slices"

	"github.com/tablefull/tablefull/model"
)

// slot is where the value of an object's key goes: a pointer of a kind
// into reads, or a func that reads the value itself.
type slot struct {
	key string
	to  any
}

// maxObjectKeys bounds the keys of one object the scanner reads (the
// vocabulary's, at the top of a line, are the most).
const maxObjectKeys = 64

// object reads an object, each key's value into its slot; a key that has
// none goes to other (nil: no other key is read). A key not taken, or one
// given twice, fails the scan: encoding/json merges repeated keys, and
// scan leaves such lines to it.
func (s *scan) object(slots []slot, other func(key []byte) bool) {
	s.expect('{')
	if s.peek() == '}' {
		s.i++
		return
	}
	var seen [maxObjectKeys][]byte
	n := 0
	for s.ok {
		key := s.key()
		s.expect(':')
		if !s.ok {
			return
		}
		if n == maxObjectKeys || slices.ContainsFunc(seen[:n], func(k []byte) bool { return bytes.Equal(k, key) }) {
			s.fail()
			return
		}
		seen[n], n = key, n+1
		if !s.slot(slots, key) && (other == nil || !other(key)) {
			s.fail()
			return
		}
		if !s.more('}') {
			return
		}
	}
}

// slot reads the value of key into its slot; false when it has none.
func (s *scan) slot(slots []slot, key []byte) bool {
	for _, sl := range slots {
		if sl.key == string(key) {
			s.into(sl.to)
			return true
		}
	}
	return false
}

// tuple reads an array of exactly len(to) values, each into its place.
func (s *scan) tuple(to ...any) {
	s.expect('[')
	for i, p := range to {
		if i > 0 {
			s.expect(',')
		}
		s.into(p)
	}
	s.expect(']')
}

// into reads a value into p by p's kind: a string, a number, a bool, a
// table's status, a class's or protocol's counts, rows of counts, a list
// of strings, or a func that reads it.
func (s *scan) into(p any) {
	switch p := p.(type) {
	case *string:
		*p = s.str()
	case *model.TableStatus:
		*p = model.TableStatus(s.str())
	case *uint64:
		*p = s.uint()
	case *uint:
		*p = uint(s.uint())
	case *int64:
		*p = s.int()
	case *int:
		*p = int(s.int())
	case *bool:
		*p = s.bool()
	case **[model.NumClasses]uint64:
		*p = new([model.NumClasses]uint64)
		classUints(s, (*p)[:])
	case **[model.NumProtos]uint64:
		*p = new([model.NumProtos]uint64)
		uints(s, (*p)[:])
	case *[]countRow:
		*p = []countRow{}
		s.array(func() {
			var r countRow
			s.tuple(&r.key, &r.n)
			*p = append(*p, r)
		})
	case *[]string:
		*p = []string{}
		s.array(func() { *p = append(*p, s.str()) })
	case func():
		p()
	default:
		s.fail()
	}
}
