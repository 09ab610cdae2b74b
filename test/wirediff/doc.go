// Package wirediff holds a differential test, and nothing else: client-go's
// REST-client decoding of list and watch responses (a rest.RESTClient
// configured as the typed clientset configures its own, over an in-memory
// transport) against runtime/wire's ListWatch, on the same response bytes.
//
// The test runs on k8s.io/api's round-trip fixtures (testdata/HEAD and the
// older releases' directories shipped in the k8s.io/api module) for every
// kind with a List type, in JSON, protobuf and CBOR, as lists, watch
// streams and watch-lists, with bodies delivered whole and in random small
// reads; and on a table of hostile bodies. Both decoders must agree on
// error versus success, on every decoded object (reflect.DeepEqual), on
// the list metadata, and on every watch event up to the stream's end.
// See wirediff_test.go for what is compared and why.
//
// It is its own module because it imports client-go, which the main module
// must not. `make wirediff` runs it; `make wirediff-fuzz` fuzzes arbitrary
// bodies through both decoders.
package wirediff
