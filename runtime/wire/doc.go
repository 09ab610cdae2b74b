// Package wire decodes list and watch responses of an API server for the
// informer runtime, item by item, straight into the informer's type.
//
// A ListerWatcher built on a typed clientset hands the reflector whole
// decoded lists: the clientset reads the full response body into memory,
// decodes it into a list object (a *PodList whose Items array holds every
// object), and the reflector then copies each item out. On a large
// resource the body, the list and the cache are all alive at the peak of
// the sync, and decoding is most of its time. ListWatch instead reads the
// response stream and decodes one item at a time into a fresh T, which the
// reflector files before the next one is read: only the bytes of the item
// being decoded are buffered (and the buffer is reused), and no list
// object or Items array is ever built. Watch streams (plain watches and
// watch-list streams) are decoded the same way, event by event.
//
// Two encodings are read: Kubernetes' protobuf for types with generated
// protobuf methods (an Unmarshal method, as every k8s.io/api type has),
// and JSON for everything else. A protobuf list is one message in the
// "k8s\x00"-prefixed runtime.Unknown envelope; a protobuf watch stream is
// a sequence of length-prefixed frames, each a bare WatchEvent message
// whose object is in that envelope.
// Which one is asked for is Options.ContentType. The response's encoding
// is taken from its Content-Type when the Fetch returns one, as client-go
// does; a Fetch that cannot know it (NewRESTFetch's: the REST client's
// Stream does not pass it on) leaves it to be recognised from the first
// bytes, so a server that answers JSON to a protobuf request (a custom
// resource) is still read correctly either way. Without a Content-Type, a
// watch stream asked for as JSON only is read as JSON, as client-go reads
// it, whatever it starts with. CBOR, as apimachinery's CBOR serializer
// writes it, is read too when asked for (ContentTypeCBOR); without a
// Content-Type, a body that does not start with '{' is then CBOR, with or
// without its self-described tag. A list body of null (an empty list in
// JSON) is taken as JSON only when JSON was asked for or is the
// Content-Type.
//
// JSON items are decoded by a decoder built once per ListWatch for T (see
// internal/jsondec): it reads each item's bytes once, straight from the
// stream's buffer, checking their syntax as it goes, writes fields
// through precomputed offsets instead of walking T by reflection, and
// decodes exactly as sigs.k8s.io/json's UnmarshalCaseSensitivePreserveInts
// (what apimachinery uses), to which it hands the values it does not
// decode itself.
//
// Protobuf items are decoded by a decoder built once per ListWatch for T
// (see internal/protodec) when T is a struct with protobuf struct tags, as
// every k8s.io/api type is: it writes fields through precomputed offsets
// and gives exactly what T's generated Unmarshal gives, errors included,
// calling the Unmarshal methods written by hand (resource.Quantity,
// metav1.Time) on their own bytes. Other types with an Unmarshal method
// are decoded by it.
//
// The items of one response (a list, or a watch stream's events) share the
// short strings they repeat: namespaces, label keys and values, images,
// condition types, managers. The JSON and protobuf decoders look each
// string up before allocating it (each string field first compared with
// the string the item before held there); items decoded by their own
// Unmarshal method, which allocates every string, are walked once decoded
// by a plan that does the same. Only strings are shared, which are
// immutable: no two objects share anything mutable.
//
// Unstructured objects (*unstructured.Unstructured, what client-go's
// dynamic client and dynamic informers hold) have their own ListWatch,
// NewUnstructuredListWatch: the same generic ListWatch, reading JSON only
// (as the dynamic client asks for by default). Each item's JSON is
// decoded straight into its map[string]interface{} by
// internal/jsondec's UnstructuredDecoder, which gives exactly what
// apimachinery's UnstructuredJSONScheme gives (integers as int64, other
// numbers as float64, strings unescaped and invalid UTF-8 replaced as
// encoding/json does, the last of duplicate keys kept, the same nesting
// limit and the same errors), in one pass, with every map and slice
// allocated at its final size. Keys and short string values are shared
// through the response's string table like a typed item's strings; maps
// and slices never are. Lists and watch events follow the dynamic
// client's rules around the objects: items without kind and apiVersion get
// the list's, a list needs a kind, an event object needs a kind and an
// apiVersion, and a Status (an ERROR event's object) is a *metav1.Status.
//
// Bodies are accepted and refused as client-go's REST client decodes them
// (apimachinery's codecs, its streaming decoder and framers), odd and
// hostile ones included. Lists: a JSON body of null, {} or a list without
// items or metadata is an empty list; the JSON nesting limit counts from
// the top of the document, not of each item; kind and apiVersion keys,
// matched regardless of case as encoding/json matches them, must be
// strings or null; a second metadata merges into the first; bytes after
// the list are an error; items keep the kind and apiVersion they carry.
// In CBOR lists too, null, an empty map or a map without items or
// metadata is an empty list; keys are matched case sensitively and a
// duplicate key is an error, as apimachinery's CBOR decoder reads them.
// A Status in a list's place (JSON, protobuf or CBOR, wherever its kind
// comes in the body) is the error client-go's REST client makes of it,
// an *apierrors.StatusError of its reason and code (a 410 Expired makes
// the reflector list again). A protobuf envelope's contentEncoding and
// contentType are not looked at, an envelope without a raw field is an
// empty list, and known fields of the wrong wire type are gogo-protobuf's
// errors. Watch streams: each
// event's object must carry a kind and an apiVersion, T's (see
// Options.GroupVersionKind) or, in an ERROR event, a Status's, as
// client-go's decoding through its scheme requires; otherwise, and for an
// event longer than client-go's 16 MiB, the stream ends with the Error
// event client-go's stream watcher sends for a decoding error (a 500
// Status of reason InternalError whose cause is of type
// ClientWatchDecoding), naming the resource, the event type and what
// arrived. Event objects, Status included, have an empty TypeMeta. A body
// ending inside an event or a protobuf frame ends the watch quietly, as
// client-go's does. The end of each JSON value or CBOR item is found by a
// scan that resumes where the previous read stopped: an event costs time
// linear in its size however its bytes arrive.
//
// Where client-go's behaviour cannot be had item by item, or is unsafe,
// ListWatch does otherwise:
//   - An object of another registered type in a watch (a Service in a Pod
//     watch, a Pod of another version client-go's scheme knows) is
//     handed over by client-go as that type, which its reflector drops
//     with a logged error; ListWatch, whose events hold only T, ends the
//     stream with a decoding Error event instead (the reflector watches
//     again). Nothing of the wrong type ever reaches the store.
//   - A list's items are handed over as they are decoded, and cannot be
//     taken back: a second items member (JSON) or raw field (protobuf)
//     after items were handed over is an error, where client-go keeps the
//     last one.
//   - An event longer than 16 MiB is read to its end without being kept;
//     client-go's JSON framer buffers it whole (however large) before
//     its streaming decoder refuses it. A protobuf frame's length is
//     never used to allocate more than 16 MiB.
//   - Without the response's Content-Type (NewRESTFetch), a JSON body
//     answering a request for protobuf or CBOR is read as JSON, since
//     that is how a server answers for a custom resource (or without
//     CBOR serving); client-go, which reads the header, decodes such a
//     body as protobuf or CBOR when the header says so, and fails (a
//     list's error, a watch's quiet end). With the Content-Type known,
//     ListWatch follows it as client-go does.
//   - A list response of another kind than T's list (a ServiceList for
//     Pods), or a Status of status Success in a list's place, is an
//     error for a ListWatch that knows T's group and version; client-go's
//     typed decoding gives an empty list for one its scheme knows, on
//     which the reflector would delete every cached object. An ERROR
//     event whose object is not a Status is a decoding Error event.
//
// test/wirediff compares this package with client-go's REST client on
// k8s.io/api's fixtures and on hostile bodies; its knownDifferences table
// lists every body on which the two still differ, with the reason.
//
// The package does not import k8s.io/client-go. It obtains bytes through a
// Fetch function, which performs the GET and returns the response body;
// with client-go it is a few lines over a clientset's RESTClient() (see
// Fetch), which keeps the client's authentication, rate limiter and
// retries.
//
// The name: client-go and apimachinery use "serializer", "streaming",
// "decoder" and "codec" for their general machinery over runtime.Object
// and a scheme; this package is none of those (no scheme, no registered
// types, one concrete type per ListWatch, lists flattened into their
// items). It is about the bytes as they come off the wire, so it is named
// after that.
package wire
