package protodec_test

import (
	"flag"
	"fmt"
	"math/rand"
	"reflect"
	"sort"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	metafuzzer "k8s.io/apimachinery/pkg/apis/meta/fuzzer"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"sigs.k8s.io/randfill"

	"github.com/typedinformer/typedinformer/runtime/wire/internal/jsondec"
	"github.com/typedinformer/typedinformer/runtime/wire/internal/protodec"
)

type message interface {
	Marshal() ([]byte, error)
	Unmarshal([]byte) error
}

var messageType = reflect.TypeFor[message]()

var (
	seedsFlag  = flag.Int("protodec.seeds", 12, "random values per type in TestEqualsGeneratedUnmarshal")
	budgetFlag = flag.Duration("protodec.budget", 4*time.Second, "time TestEqualsGeneratedUnmarshal spreads over the types (each gets at least one value)")
)

// apiTypes returns every struct type with protobuf methods that the
// scheme of k8s.io/api knows (lists included), and every such type their
// fields reach, sorted by name.
func apiTypes(t *testing.T) []reflect.Type {
	t.Helper()
	s, err := apiScheme()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(rt reflect.Type) {
		for rt.Kind() == reflect.Pointer || rt.Kind() == reflect.Slice || rt.Kind() == reflect.Map {
			if rt.Kind() == reflect.Map {
				walk(rt.Key())
			}
			rt = rt.Elem()
		}
		if rt.Kind() != reflect.Struct || seen[rt] {
			return
		}
		seen[rt] = true
		for i := range rt.NumField() {
			walk(rt.Field(i).Type)
		}
	}
	for _, rt := range s.AllKnownTypes() {
		walk(rt)
	}
	var out []reflect.Type
	for rt := range seen {
		if reflect.PointerTo(rt).Implements(messageType) {
			out = append(out, rt)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

func newFiller(codecs serializer.CodecFactory, seed int64) *randfill.Filler {
	return fuzzer.FuzzerFor(metafuzzer.Funcs, rand.NewSource(seed), codecs)
}

// compare decodes data with the generated Unmarshal of t and with d and
// fails unless both fail with the same error text or both succeed with
// deeply equal values.
func compare(t *testing.T, d *protodec.Decoder, st *protodec.State, rt reflect.Type, data []byte, what string) bool {
	t.Helper()
	want := reflect.New(rt)
	wantErr := want.Interface().(message).Unmarshal(data)
	got := reflect.New(rt)
	gotErr := d.Unmarshal(data, got.Interface(), st)
	switch {
	case (wantErr == nil) != (gotErr == nil):
		t.Errorf("%v (%s): generated Unmarshal: %v; protodec: %v\ndata %.3000x", rt, what, wantErr, gotErr, data)
		return false
	case wantErr != nil:
		if wantErr.Error() != gotErr.Error() {
			t.Errorf("%v (%s): generated Unmarshal: %v; protodec: %v\ndata %.3000x", rt, what, wantErr, gotErr, data)
			return false
		}
	case !reflect.DeepEqual(want.Interface(), got.Interface()):
		t.Errorf("%v (%s): values differ\ngenerated %.3000s\nprotodec  %.3000s\ndata %.3000x", rt, what, fmt.Sprintf("%#v", want.Elem().Interface()), fmt.Sprintf("%#v", got.Elem().Interface()), data)
		return false
	}
	return true
}

// mutate returns a copy of data with a random fault: a byte changed, the
// end cut off, random bytes inserted or a tail duplicated.
func mutate(r *rand.Rand, data []byte) []byte {
	b := append([]byte(nil), data...)
	switch r.Intn(5) {
	case 0:
		if len(b) > 0 {
			b[r.Intn(len(b))] = byte(r.Intn(256))
		}
	case 1:
		if len(b) > 0 {
			b = b[:r.Intn(len(b))]
		}
	case 2:
		at := r.Intn(len(b) + 1)
		ins := make([]byte, 1+r.Intn(4))
		r.Read(ins)
		b = append(b[:at:at], append(ins, b[at:]...)...)
	case 3:
		if len(b) > 0 {
			b = append(b, b[r.Intn(len(b)):]...)
		}
	case 4:
		if len(b) > 0 {
			b[r.Intn(len(b))] ^= 1 << r.Intn(8)
		}
	}
	return b
}

// TestEqualsGeneratedUnmarshal decodes random values of every k8s.io/api
// type with protobuf methods, encoded by their generated Marshal, with
// the generated Unmarshal and with protodec, and requires equal values;
// and the same bytes with random faults, requiring the same error or the
// same value.
func TestEqualsGeneratedUnmarshal(t *testing.T) {
	types := apiTypes(t)
	s, err := apiScheme()
	if err != nil {
		t.Fatal(err)
	}
	codecs := serializer.NewCodecFactory(s)
	seeds, budget := *seedsFlag, *budgetFlag
	if testing.Short() {
		seeds, budget = 3, 2*time.Second
	}
	var planned, delegated []string
	values, faults := 0, 0
	start := time.Now()
	for n, rt := range types {
		d, err := protodec.New(rt)
		if err != nil {
			delegated = append(delegated, rt.String()+": "+err.Error())
			continue
		}
		planned = append(planned, rt.String())
		st := d.NewState(jsondec.NewStrings(1 << 12))
		// Spread the budget over the types left.
		deadline := time.Now().Add((budget - time.Since(start)) / time.Duration(len(types)-n))
		r := rand.New(rand.NewSource(int64(n)))
		for seed := 0; seed < seeds && (seed == 0 || time.Now().Before(deadline)); seed++ {
			v := reflect.New(rt)
			f := newFiller(codecs, int64(n*1000+seed)).NilChance(.2).NumElements(0, 3).MaxDepth(8)
			f.Fill(v.Interface())
			data, err := v.Interface().(message).Marshal()
			if err != nil {
				t.Fatalf("%v: Marshal: %v", rt, err)
			}
			values++
			if !compare(t, d, st, rt, data, "random value") {
				break
			}
			for range 8 {
				faults++
				if !compare(t, d, st, rt, mutate(r, data), "faulty bytes") {
					break
				}
			}
		}
		if t.Failed() && len(planned) > 20 {
			break
		}
	}
	t.Logf("%d types: %d planned, %d not; %d random values, %d with faults, in %v", len(types), len(planned), len(delegated), values, faults, time.Since(start))
	for _, s := range delegated {
		t.Logf("not planned: %s", s)
	}
}
