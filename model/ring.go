package model

// Ring is a bounded history: it keeps the last Cap values pushed and drops
// the oldest, so memory stays bounded however long it runs. Its memory
// grows with the values it holds, up to Cap: a console's hour of frames
// (4.6 MB) is not paid in its first minute.
type Ring[T any] struct {
	buf      []T // until full: the values in order, start 0
	start    int
	n        int
	capacity int
}

// NewRing returns an empty ring holding at most capacity values.
func NewRing[T any](capacity int) *Ring[T] {
	return &Ring[T]{capacity: max(1, capacity)}
}

// Push appends v, dropping the oldest value when full.
func (r *Ring[T]) Push(v T) {
	if r.n < r.capacity {
		if r.n == cap(r.buf) { // double, never past the capacity
			grown := make([]T, r.n, min(r.capacity, max(8, 2*r.n)))
			copy(grown, r.buf)
			r.buf = grown
		}
		r.buf = append(r.buf, v)
		r.n++
		return
	}
	r.buf[r.start] = v
	r.start = (r.start + 1) % len(r.buf)
}

// Len is the number of values held.
func (r *Ring[T]) Len() int { return r.n }

// Cap is the most values the ring holds.
func (r *Ring[T]) Cap() int { return r.capacity }

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
