/*
Copyright 2026 The typedinformer Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package controller

import (
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/cache"

	"github.com/typedinformer/typedinformer/crcache"
)

// TestManagerOptions: each cache name gives its NewCacheFunc, and an unknown
// name is an error that names it.
func TestManagerOptions(t *testing.T) {
	scheme, err := NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cache   string
		want    cache.NewCacheFunc
		wantErr string
	}{
		{cache: "", want: crcache.New},
		{cache: CacheTypedinformer, want: crcache.New},
		{cache: CacheControllerRuntime, want: cache.New},
		{cache: "informers", wantErr: `unknown cache "informers"`},
		{cache: "Controller-Runtime", wantErr: `unknown cache "Controller-Runtime"`},
	} {
		t.Run(tc.cache, func(t *testing.T) {
			opts, err := ManagerOptions(scheme, ManagerConfig{Cache: tc.cache, MetricsBindAddress: "0"})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("ManagerOptions(%q): error %v, want one containing %s", tc.cache, err, tc.wantErr)
				}
				if opts.NewCache != nil || opts.Scheme != nil {
					t.Fatalf("ManagerOptions(%q) failed but returned options %+v", tc.cache, opts)
				}
				return
			}
			if err != nil {
				t.Fatalf("ManagerOptions(%q): %v", tc.cache, err)
			}
			if got, want := reflect.ValueOf(opts.NewCache).Pointer(), reflect.ValueOf(tc.want).Pointer(); got != want {
				t.Fatalf("ManagerOptions(%q).NewCache is not the cache it names", tc.cache)
			}
			if opts.Scheme != scheme {
				t.Fatalf("ManagerOptions(%q) did not keep the scheme", tc.cache)
			}
		})
	}
}
