// Package fuzz holds the fuzz target of protodec. It is a package of its
// own so that the fuzzer's coverage instrumentation covers a few API
// packages rather than all of k8s.io/api, which the equality test imports.
package fuzz

import (
	"math/rand"
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metafuzzer "k8s.io/apimachinery/pkg/apis/meta/fuzzer"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"sigs.k8s.io/randfill"

	"github.com/typedinformer/typedinformer/runtime/wire/internal/jsondec"
	"github.com/typedinformer/typedinformer/runtime/wire/internal/protodec"
)

type message interface {
	Marshal() ([]byte, error)
	Unmarshal([]byte) error
}

// fuzzTypes are the types the target decodes: the ones informers cache
// most, and two shaped like custom resources (a raw embedded object;
// maps of messages and a deep spec).
func fuzzTypes() []reflect.Type {
	return []reflect.Type{
		reflect.TypeFor[corev1.Pod](),
		reflect.TypeFor[corev1.ConfigMap](),
		reflect.TypeFor[corev1.Secret](),
		reflect.TypeFor[corev1.Node](),
		reflect.TypeFor[appsv1.ControllerRevision](),
		reflect.TypeFor[resourcev1.ResourceSlice](),
	}
}

// FuzzEqualsGeneratedUnmarshal decodes arbitrary bytes as one of
// fuzzTypes (picked by which) with the generated Unmarshal and with
// protodec, and requires the same error text, or no error and deeply
// equal values. The corpus starts from random values of each type
// (apimachinery's fuzzer functions), Marshal'ed, whole and cut short.
func FuzzEqualsGeneratedUnmarshal(f *testing.F) {
	types := fuzzTypes()
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, appsv1.AddToScheme, resourcev1.AddToScheme} {
		if err := add(scheme); err != nil {
			f.Fatal(err)
		}
	}
	codecs := serializer.NewCodecFactory(scheme)
	for k, rt := range types {
		for seed := range 4 {
			v := reflect.New(rt)
			randfill.NewWithSeed(int64(k*100+seed)).NilChance(.2).NumElements(0, 3).MaxDepth(8).
				Funcs(metafuzzer.Funcs(codecs)...).Fill(v.Interface())
			data, err := v.Interface().(message).Marshal()
			if err != nil {
				f.Fatal(err)
			}
			f.Add(uint8(k), data)
			f.Add(uint8(k), data[:rand.New(rand.NewSource(int64(seed))).Intn(len(data)+1)])
		}
	}
	decs := make([]*protodec.Decoder, len(types))
	for k, rt := range types {
		var err error
		if decs[k], err = protodec.New(rt); err != nil {
			f.Fatal(err)
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		k := int(which) % len(types)
		rt := types[k]
		want := reflect.New(rt)
		wantErr := want.Interface().(message).Unmarshal(data)
		got := reflect.New(rt)
		gotErr := decs[k].Unmarshal(data, got.Interface(), decs[k].NewState(jsondec.NewStrings(64)))
		switch {
		case (wantErr == nil) != (gotErr == nil) || wantErr != nil && wantErr.Error() != gotErr.Error():
			t.Fatalf("%v: generated Unmarshal: %v; protodec: %v", rt, wantErr, gotErr)
		case wantErr == nil && !reflect.DeepEqual(want.Interface(), got.Interface()):
			t.Fatalf("%v: values differ\ngenerated %#v\nprotodec  %#v", rt, want.Elem().Interface(), got.Elem().Interface())
		}
	})
}
