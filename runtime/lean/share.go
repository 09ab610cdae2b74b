package lean

import (
	"sort"
	"strconv"
	"strings"
)

// shared returns the value remembered under key if eq accepts it, else
// remembers v under key and returns it. Values age out with the strings
// (two generations of at most maxEntries). Callers make key describe v
// exactly, and eq confirms, so a value is only ever replaced by an equal one.
func (in *Interner) shared(key string, v any, eq func(old any) bool) any {
	in.mu.RLock()
	old, ok := in.vals.Current(key)
	in.mu.RUnlock()
	if ok && eq(old) {
		return old
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if old, ok := in.vals.Current(key); ok && eq(old) {
		return old
	}
	if old, ok := in.vals.Old(key); ok && eq(old) {
		v = old
	}
	in.vals.Put(strings.Clone(key), v, in.maxEntries)
	return v
}

// sharedMap returns a map equal to m that earlier objects with equal maps
// use too, interning its keys and values on first sight. Maps of more than
// 16 entries are only interned, not shared.
func sharedMap(in *Interner, m map[string]string) map[string]string {
	if len(m) == 0 {
		return m
	}
	internMap(in.Intern, m)
	if len(m) > 16 {
		return m
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("map:")
	for _, k := range keys {
		v := m[k]
		if len(k)+len(v) > in.maxLen {
			return m // a long value: rarely repeated, not worth the key
		}
		b.WriteString(strconv.Itoa(len(k)))
		b.WriteByte(':')
		b.WriteString(k)
		b.WriteString(strconv.Itoa(len(v)))
		b.WriteByte(':')
		b.WriteString(v)
	}
	out := in.shared(b.String(), m, func(old any) bool {
		o, ok := old.(map[string]string)
		if !ok || len(o) != len(m) {
			return false
		}
		for k, v := range m {
			if ov, ok := o[k]; !ok || ov != v {
				return false
			}
		}
		return true
	})
	return out.(map[string]string)
}
