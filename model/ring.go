package model

// Ring is a bounded history: it keeps the last Cap values pushed and drops
// the oldest, so memory stays constant however long it runs.
type Ring[T any] struct {
	buf   []T
	start int
	n     int
}

// NewRing returns an empty ring holding at most capacity values.
func NewRing[T any](capacity int) *Ring[T] {
	return &Ring[T]{buf: make([]T, max(1, capacity))}
}

// Push appends v, dropping the oldest value when full.
func (r *Ring[T]) Push(v T) {
	if r.n < len(r.buf) {
		r.buf[(r.start+r.n)%len(r.buf)] = v
		r.n++
		return
	}
	r.buf[r.start] = v
	r.start = (r.start + 1) % len(r.buf)
}

// Len is the number of values held.
func (r *Ring[T]) Len() int { return r.n }

// Cap is the most values the ring holds.
func (r *Ring[T]) Cap() int { return len(r.buf) }

// At returns the i-th oldest value; At(Len()-1) is the newest.
func (r *Ring[T]) At(i int) T { return r.buf[(r.start+i)%len(r.buf)] }

// Last returns the newest value and whether there is one.
func (r *Ring[T]) Last() (T, bool) {
	if r.n == 0 {
		var zero T
		return zero, false
	}
	return r.At(r.n - 1), true
}

// Set replaces the i-th oldest value.
func (r *Ring[T]) Set(i int, v T) { r.buf[(r.start+i)%len(r.buf)] = v }
