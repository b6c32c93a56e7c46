package model

// earlierRows finds each row's row in the sample before: at the same index
// when the two samples list their rows alike (they do, second after
// second), else by key through a map built on the first miss. A kernel
// never lists an id twice; if a stream does, either of its rows may be
// the one paired.
type earlierRows[T any, K comparable] struct {
	rows  []T
	key   func(T) K
	byKey map[K]T
}

func (p *earlierRows[T, K]) find(i int, k K) (T, bool) {
	if i < len(p.rows) && p.key(p.rows[i]) == k {
		return p.rows[i], true
	}
	if p.byKey == nil {
		p.byKey = make(map[K]T, len(p.rows))
		for _, r := range p.rows {
			p.byKey[p.key(r)] = r
		}
	}
	r, ok := p.byKey[k]
	return r, ok
}
