// Package lean holds ready transforms that shrink what an informer caches,
// for processes that hold many objects. Each is a cache.TransformFunc[T]
// that runs once per object as it arrives (list item or watch event),
// before the object is stored and handed to handlers; combine them with
// your own transform with Chain, install one per informer with
// SharedIndexInformer.SetTransform or per factory with
// informers.WithLean.
//
// What each part saves, costs and breaks:
//
//   - StripManagedFields drops metadata.managedFields, typically the largest
//     part of an object's metadata (often a third to a half of a decoded
//     Pod). Breaks: code that reads managedFields from the cache, e.g.
//     extracting an apply configuration (ExtractPod and friends) from a
//     cached object. An Update sent from a cached copy omits managedFields,
//     which the API server treats as "unchanged". Cost: none measurable.
//   - StripLastApplied also drops the kubectl.kubernetes.io/last-applied-
//     configuration annotation (a full JSON copy of the applied object).
//     Breaks: three-way diffs computed from the cache; and an Update (not a
//     Patch) sent from a cached copy REMOVES the annotation on the server,
//     so later client-side kubectl applies lose their baseline. Use it only
//     when the controller patches or applies, never updates whole objects.
//   - Intern and InternPod make equal strings share one copy: namespace,
//     generateName, label and annotation keys and values, owner references'
//     apiVersion, kind, name and uid, and (InternPod) the strings of a Pod's
//     spec and status that repeat across Pods: node names, images, container
//     names, service accounts, phases, condition types. Breaks nothing (Go
//     strings are immutable); it costs one map lookup per string on every
//     event and the Interner's memory for the distinct strings it keeps
//     (bounded, see NewInterner).
//   - ShareMaps and SharePodSpec (Options.Share) make objects with equal
//     label or annotation maps, and Pods with equal containers, volumes,
//     tolerations or node selectors (Pods of one template), use one shared
//     copy, checked equal in full first. Options.Share does the same for
//     the maps of strings other types hold among their members, reached
//     through exported fields, pointers and slices (a custom resource's
//     spec, a ConfigMap's data, a Deployment's template labels); maps of
//     more than 16 entries or with long values are only interned. With managedFields gone this is
//     most of what remains of a Pod. Breaks: objects share those parts, so a
//     handler that mutates a cached object (always forbidden: DeepCopy
//     first) now corrupts every object sharing them. Cost: building a key
//     and one deep comparison per shared part per event.
//
// lean.Default() is StripManagedFields + Intern + Share.
//
// The objects a transform receives are freshly decoded and owned by the
// informer, so these transforms modify them in place; they are idempotent.
package lean
