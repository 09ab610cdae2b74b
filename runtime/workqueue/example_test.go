package workqueue_test

import (
	"fmt"
	"sync"

	"github.com/typedinformer/typedinformer/runtime/workqueue"
)

// A producer adds keys (duplicates collapse), workers take them one at a
// time and mark them done. Objects from an informer's initial list are added
// at PriorityLow, so a live event added later is still handed out first.
func Example() {
	q := workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{})

	q.AddWithOpts(workqueue.AddOpts{Priority: workqueue.PriorityLow}, "shop/listed-1", "shop/listed-2")
	q.Add("shop/live")
	q.Add("shop/live") // already queued: collapses

	var (
		mu   sync.Mutex
		seen []string
	)
	q.ShutDownWithDrain() // no new items; queued ones are still handed out
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			key, shutdown := q.Get()
			if shutdown {
				return
			}
			mu.Lock()
			seen = append(seen, key)
			mu.Unlock()
			q.Forget(key) // success: reset its backoff
			q.Done(key)
		}
	})
	wg.Wait()
	fmt.Println(seen)
	// Output:
	// [shop/live shop/listed-1 shop/listed-2]
}
