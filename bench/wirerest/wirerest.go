// Package wirerest connects runtime/wire to client-go: it turns a
// clientset's REST client into the wire.Fetch a wire.ListWatch reads
// from, so that lists and watches keep the client's authentication, rate
// limiter, retries and content-type configuration while the runtime
// decodes the response bytes item by item.
//
// It lives outside the main module because it imports client-go, which
// the runtime never does; user code or generated code holds the same few
// lines.
package wirerest

import (
	"context"
	"io"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"

	"github.com/typedinformer/typedinformer/runtime/wire"
)

// Fetch returns a wire.Fetch that GETs resource (a plural such as "pods")
// in namespace ("" for all namespaces or a cluster-scoped resource)
// through client, encoding the ListOptions with params (client-go's
// kubernetes/scheme.ParameterCodec for built-in types).
//
// The content type follows client-go's typed clients: when the wire
// ListWatch asks for protobuf, the request prefers protobuf only if the
// client's configuration sets no content type (rest.Config.ContentType or
// AcceptContentTypes); a content type the user set is kept. A request for
// JSON always asks for JSON. wire recognises what the server answered.
func Fetch(client rest.Interface, namespace, resource string, params runtime.ParameterCodec) wire.Fetch {
	return func(ctx context.Context, opts metav1.ListOptions, accept string) (io.ReadCloser, string, error) {
		req := client.Get().
			NamespaceIfScoped(namespace, namespace != "").
			Resource(resource).
			VersionedParams(&opts, params)
		if strings.HasPrefix(accept, wire.ContentTypeProtobuf) {
			req = req.UseProtobufAsDefault()
		} else {
			req = req.SetHeader("Accept", accept)
		}
		body, err := req.Stream(ctx)
		if err != nil {
			return nil, "", err
		}
		return body, "", nil
	}
}
