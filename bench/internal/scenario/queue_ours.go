package scenario

import "github.com/typedinformer/typedinformer/runtime/workqueue"

// Our queue with its defaults: no name, no metrics provider, the default
// rate limiter (used only by AddRateLimited, which the scenario never calls).
func init() {
	newOursQueue = func() workQueue { return workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{}) }
}
