package tally

// Sketch is a Misra-Gries heavy-hitter counter of at most SketchSize
// keys: exact until it overflows; after that every key seen more than
// total/(SketchSize+1) times is kept, with a count that may be low by at
// most that much. Its cost per key is O(1) amortised. The zero value is
// ready to use.
type Sketch[K comparable] struct {
	m          map[K]int
	overflowed bool
}

// Add counts one key.
func (s *Sketch[K]) Add(k K) {
	if s.m == nil {
		s.m = make(map[K]int, SketchSize)
	}
	if _, ok := s.m[k]; ok || len(s.m) < SketchSize {
		s.m[k]++
		return
	}
	s.overflowed = true
	for key, v := range s.m { // every counter pays one for the newcomer
		if v <= 1 {
			delete(s.m, key)
		} else {
			s.m[key] = v - 1
		}
	}
}

// Len is how many keys the sketch holds now: never over SketchSize.
func (s *Sketch[K]) Len() int { return len(s.m) }

// Overflowed reports whether the counts are lower bounds.
func (s *Sketch[K]) Overflowed() bool { return s.overflowed }

// Top returns the n heaviest keys, named by name, and empties the sketch.
func (s *Sketch[K]) Top(n int, name func(K) string) []Count {
	out := make([]Count, 0, len(s.m))
	for k, v := range s.m {
		out = append(out, Count{name(k), v})
	}
	clear(s.m)
	s.overflowed = false
	return TopCounts(out, n)
}

// SketchSize bounds the addresses tracked for the top lists.
const SketchSize = 256
