package tally

// Ring is a bounded history: it keeps the last Cap values pushed and drops
// the oldest, so memory stays bounded however long it runs. Its memory
// grows with the values it holds, a chunk at a time, up to Cap: a
// console's hour of frames (4.6 MB) is not paid in its first minute, and
// growing copies nothing (a copy's garbage would raise the peak).
type Ring[T any] struct {
	chunks   [][]T // slot s is chunks[s/ringChunk][s%ringChunk]
	start    int
	n        int
	capacity int
}

// ringChunk is how many slots a ring allocates at a time.
const ringChunk = 256

// NewRing returns an empty ring holding at most capacity values.
func NewRing[T any](capacity int) *Ring[T] {
	return &Ring[T]{capacity: max(1, capacity)}
}

// slot is the i-th oldest value's place.
func (r *Ring[T]) slot(i int) *T {
	s := (r.start + i) % r.capacity
	return &r.chunks[s/ringChunk][s%ringChunk]
}

// Push appends v, dropping the oldest value when full.
func (r *Ring[T]) Push(v T) {
	if r.n < r.capacity { // start is 0 until full
		if r.n/ringChunk == len(r.chunks) {
			r.chunks = append(r.chunks, make([]T, min(ringChunk, r.capacity-r.n)))
		}
		r.n++
		*r.slot(r.n - 1) = v
		return
	}
	*r.slot(0) = v
	r.start = (r.start + 1) % r.capacity
}

// Len is the number of values held.
func (r *Ring[T]) Len() int { return r.n }

// Cap is the most values the ring holds.
func (r *Ring[T]) Cap() int { return r.capacity }

// At returns the i-th oldest value; At(Len()-1) is the newest.
func (r *Ring[T]) At(i int) T { return *r.slot(i) }

// Last returns the newest value and whether there is one.
func (r *Ring[T]) Last() (T, bool) {
	if r.n == 0 {
		var zero T
		return zero, false
	}
	return r.At(r.n - 1), true
}

// Set replaces the i-th oldest value.
func (r *Ring[T]) Set(i int, v T) { *r.slot(i) = v }
