package dynamicinformer_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/typedinformer/typedinformer/internal/testutil/apiserver"
	"github.com/typedinformer/typedinformer/runtime/dynamicinformer"
	"github.com/typedinformer/typedinformer/runtime/wire"
)

// wireClient is a WireClient over the server. It keeps no idle connection,
// so every open connection is a request under way.
func wireClient(s *apiserver.Server) *dynamicinformer.WireClient {
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	return dynamicinformer.NewWireClient(func(gvr schema.GroupVersionResource, ns string) (wire.Fetch, error) {
		path := s.URL + dynamicinformer.ResourcePath(gvr, ns)
		return func(ctx context.Context, opts metav1.ListOptions, accept string) (io.ReadCloser, string, error) {
			q, err := metav1.ParameterCodec.EncodeParameters(&opts, metav1.SchemeGroupVersion)
			if err != nil {
				return nil, "", err
			}
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, path+"?"+q.Encode(), nil)
			if err != nil {
				return nil, "", err
			}
			req.Header.Set("Accept", accept)
			resp, err := hc.Do(req)
			if err != nil {
				return nil, "", err
			}
			if resp.StatusCode != http.StatusOK {
				defer resp.Body.Close()
				var st metav1.Status
				if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
					return nil, "", fmt.Errorf("%s: %s", path, resp.Status)
				}
				return nil, "", apierrors.FromObject(&st)
			}
			return resp.Body, resp.Header.Get("Content-Type"), nil
		}, nil
	}, wire.Options{})
}
