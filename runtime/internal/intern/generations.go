package intern

// Generations maps strings to shared values in two generations: when the
// current one reaches its bound it becomes the old one and the previous old
// one is dropped, so a key that stops being asked for is forgotten after two
// turnovers and memory stays bounded by about twice the bound. Callers move
// a key found only in the old generation to the current one by putting it
// again. The zero value is an empty table.
type Generations[V any] struct {
	cur, old map[string]V
}

// Current returns the value of key in the current generation. It only
// reads, so an owner guarding the table with a RWMutex may call it under
// the read lock.
func (g *Generations[V]) Current(key string) (V, bool) {
	v, ok := g.cur[key]
	return v, ok
}

// Old returns the value of key in the old generation.
func (g *Generations[V]) Old(key string) (V, bool) {
	v, ok := g.old[key]
	return v, ok
}

// Put remembers v under key in the current generation, turning the
// generations over first when the current one holds limit entries. The table
// keeps key: it must not alias memory that changes.
func (g *Generations[V]) Put(key string, v V, limit int) {
	if g.cur == nil {
		g.cur = map[string]V{}
	}
	if len(g.cur) >= limit {
		g.old, g.cur = g.cur, make(map[string]V, len(g.cur))
	}
	g.cur[key] = v
}

// Len returns how many distinct keys the table remembers.
func (g *Generations[V]) Len() int {
	n := len(g.cur)
	for k := range g.old {
		if _, ok := g.cur[k]; !ok {
			n++
		}
	}
	return n
}

// CurrentLen returns how many keys the current generation holds.
func (g *Generations[V]) CurrentLen() int { return len(g.cur) }
