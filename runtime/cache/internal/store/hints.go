package store

// ReserveFor tells an empty store that items are about to be stored one by
// one (the informer queued them as a list): the bucket of each of their
// namespaces is then created with room for all of that namespace's items,
// instead of growing (and leaving garbage) as they arrive. It changes no
// content, only capacity, and does nothing unless the store is empty: on a
// relist most items update objects already held. It takes the write lock.
func (s *Indexer[T]) ReserveFor(items []T) {
	if len(items) == 0 {
		return
	}
	s.mu.RLock()
	empty := s.count == 0
	s.mu.RUnlock()
	if !empty {
		return
	}
	// Count outside the lock. A server lists in key order, so a
	// namespace's items usually come in one run: count runs, not items.
	hints := make(map[string]int)
	run, n := items[0].GetNamespace(), 0
	for _, obj := range items {
		if ns := obj.GetNamespace(); ns != run {
			hints[run] += n
			run, n = ns, 0
		}
		n++
	}
	hints[run] += n
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.count != 0 || len(s.buckets) != 0 {
		return // something was stored meanwhile
	}
	s.sizeHints = hints
}

// takeSizeHint returns and forgets the size hint of namespace ns (0 when
// there is none). The caller holds mu for writing.
func (s *Indexer[T]) takeSizeHint(ns string) int {
	if s.sizeHints == nil {
		return 0
	}
	n := s.sizeHints[ns]
	delete(s.sizeHints, ns)
	if len(s.sizeHints) == 0 {
		s.sizeHints = nil
	}
	return n
}
