package cache

import (
	"github.com/typedinformer/typedinformer/runtime/cache/internal/reflector"
)

// ItemLister is an optional interface of a ListerWatcher that decodes list
// responses item by item (runtime/wire's ListWatch is one). When the
// reflector's ListerWatcher has it, every list goes through ListItems
// instead of List: no list object is built and no decoded Items array is
// kept while the store is filled, each item being a separate object from
// the start. Any other ListerWatcher is listed through List.
//
// ListItems(ctx, opts, yield) lists one page with opts and calls yield with
// each item, in the response's order, handing over ownership of it; it
// returns the page's ListMeta (resourceVersion, continue token) after the
// last item. It must return the first error of yield unchanged and never
// call yield after it returned, and return the server's error (a 410 Gone
// included) as List would.
type ItemLister[T Object] = reflector.ItemLister[T]
