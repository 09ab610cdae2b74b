package workqueue

// AddRateLimited adds item after the rate limiter's delay; see
// RateLimitingInterface.
func (q *Typed[T]) AddRateLimited(item T) {
	q.addAfter(item, q.limiter.When(item), PriorityDefault)
}

// Forget clears item's rate-limit history; see RateLimitingInterface.
func (q *Typed[T]) Forget(item T) { q.limiter.Forget(item) }

// NumRequeues returns item's rate-limited retries; see RateLimitingInterface.
func (q *Typed[T]) NumRequeues(item T) int { return q.limiter.NumRequeues(item) }

// AddWithOpts adds items with a priority, a delay and/or a rate limit; see
// TypedPriorityInterface. With neither After nor RateLimited the items are added
// at once (no retry is counted), each exactly as Add adds it.
func (q *Typed[T]) AddWithOpts(o AddOpts, items ...T) {
	if o.After <= 0 && !o.RateLimited {
		for _, it := range items {
			q.add(it, o.Priority)
		}
		return
	}
	for _, it := range items {
		after := o.After
		if o.RateLimited {
			after = max(after, q.limiter.When(it))
		}
		q.addAfter(it, after, o.Priority)
	}
}

// Compile-time checks that Typed implements every interface.
var _ TypedPriorityInterface[string] = (*Typed[string])(nil)
