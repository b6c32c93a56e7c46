package tally

// earlierRows finds each row's row in the sample before: at the same index
// when the two samples list their rows alike (they do, second after
// second), else by key through a map built on the first miss. A kernel
// never lists an id twice; if a stream does, either of its rows may be
// the one paired.
type EarlierRows[T any, K comparable] struct {
	Rows  []T
	Key   func(T) K
	byKey map[K]T
}

func (p *EarlierRows[T, K]) Find(i int, k K) (T, bool) {
	if i < len(p.Rows) && p.Key(p.Rows[i]) == k {
		return p.Rows[i], true
	}
	if p.byKey == nil {
		p.byKey = make(map[K]T, len(p.Rows))
		for _, r := range p.Rows {
			p.byKey[p.Key(r)] = r
		}
	}
	r, ok := p.byKey[k]
	return r, ok
}
