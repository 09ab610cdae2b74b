// Package listers reads typed objects out of an informer's cache: Lister for
// a whole resource, NamespaceLister for one namespace, and GenericLister for
// callers that hold a resource but not its Go type (ForResource).
//
// Listers never copy: the objects they return are the cache's own and must be
// treated as read-only. Deep-copy before mutating.
package listers
