package store

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/typedinformer/typedinformer/runtime/internal/keys"
)

// checkInvariants verifies the layout layout.go describes: every
// bucket's name map points at its object, every recorded membership points
// at a posting element holding exactly that object, and no posting holds an
// element without a membership recording it.
func (s *Indexer[T]) checkInvariants() error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	total := 0
	recorded := make([]int, len(s.custom))
	for ns, b := range s.buckets {
		if len(b.objs) == 0 {
			return fmt.Errorf("namespace %q: empty bucket kept", ns)
		}
		used := 0
		for _, v := range b.names.slots {
			if v != 0 {
				used++
			}
		}
		if b.names.n != len(b.objs) || used != len(b.objs) || len(b.mem) != len(s.custom) {
			return fmt.Errorf("namespace %q: %d names (%d slots used), %d objects, %d membership arrays for %d indexes", ns, b.names.n, used, len(b.objs), len(b.mem), len(s.custom))
		}
		total += len(b.objs)
		for i, o := range b.objs {
			if o.GetNamespace() != ns {
				return fmt.Errorf("namespace %q holds %s", ns, keys.StringOf(o))
			}
			if _, p, ok := nameFind(&b.names, b.objs, o.GetName()); !ok || p != int32(i) {
				return fmt.Errorf("%s at position %d: the name table finds %d, %v", keys.StringOf(o), i, p, ok)
			}
		}
		for j, ci := range s.custom {
			if len(b.mem[j]) != len(b.objs) {
				return fmt.Errorf("namespace %q index %q: %d memberships for %d objects", ns, ci.name, len(b.mem[j]), len(b.objs))
			}
			for i, m := range b.mem[j] {
				obj := b.objs[i]
				check := func(val string, pos int32) error {
					p := ci.values[val]
					if p == nil || int(pos) >= len(p.objs) || keys.StringOf(p.objs[pos]) != keys.StringOf(obj) {
						return fmt.Errorf("index %q: %s recorded at %q[%d], not there", ci.name, keys.StringOf(obj), val, pos)
					}
					if any(p.objs[pos]) != any(obj) {
						return fmt.Errorf("index %q: %q[%d] holds a stale object of %s", ci.name, val, pos, keys.StringOf(obj))
					}
					recorded[j]++
					return nil
				}
				if m.pos < 0 {
					if m.more != nil {
						return fmt.Errorf("index %q: %s is in no posting but has further values", ci.name, keys.StringOf(obj))
					}
					continue
				}
				if err := check(m.val, m.pos); err != nil {
					return err
				}
				for _, vp := range m.more {
					if err := check(vp.val, vp.pos); err != nil {
						return err
					}
				}
			}
		}
	}
	if total != s.count {
		return fmt.Errorf("count %d, buckets hold %d", s.count, total)
	}
	for j, ci := range s.custom {
		held := 0
		for v, p := range ci.values {
			if len(p.objs) == 0 {
				return fmt.Errorf("index %q: empty posting %q kept", ci.name, v)
			}
			held += len(p.objs)
		}
		if held != recorded[j] {
			return fmt.Errorf("index %q: postings hold %d elements, memberships record %d", ci.name, held, recorded[j])
		}
	}
	return nil
}

// byIdxLabel is the model's index function: the comma-separated values of
// label "idx" (repeats allowed), failing when label "bad" is set.
func byIdxLabel(p *corev1.Pod) ([]string, error) {
	if _, bad := p.Labels["bad"]; bad {
		return nil, errors.New("bad label")
	}
	v, ok := p.Labels["idx"]
	if !ok {
		return nil, nil
	}
	return strings.Split(v, ","), nil
}

// refIndexer is the reference the indexer is compared with: a plain map of
// objects, with index results computed by scanning it.
type refIndexer map[string]*corev1.Pod

// indexValues is what the index named index files p under, computed
// without the indexer; the error is the idx index function's.
func indexValues(index string, p *corev1.Pod) ([]string, error) {
	switch index {
	case NamespaceIndex:
		return []string{p.Namespace}, nil
	case "idx":
		return byIdxLabel(p)
	case "node":
		vals, _ := byNodeName(p)
		return vals, nil
	}
	return nil, nil
}

func (r refIndexer) byIndex(index, value string) []string {
	var out []string
	for k, p := range r {
		vals, err := indexValues(index, p)
		if err != nil {
			continue
		}
		if slices.Contains(vals, value) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

func (r refIndexer) values(index string) []string {
	seen := map[string]bool{}
	for _, p := range r {
		vals, _ := indexValues(index, p)
		for _, v := range vals {
			seen[v] = true
		}
	}
	out := []string{}
	for v := range seen {
		out = append(out, v)
	}
	slices.Sort(out)
	return out
}

// modelPod draws a Pod over a small key space whose index values are drawn
// from a small value space, with repeats and failures.
func modelPod(rng *rand.Rand, rv int) *corev1.Pod {
	ns := fmt.Sprintf("ns%d", rng.IntN(3))
	name := fmt.Sprintf("p%d", rng.IntN(12))
	var labels []string
	switch rng.IntN(6) {
	case 0: // no idx label
	case 1:
		labels = []string{"bad", "1"}
	default:
		n := 1 + rng.IntN(3)
		vals := make([]string, n)
		for i := range vals {
			vals[i] = fmt.Sprintf("v%d", rng.IntN(5))
		}
		labels = []string{"idx", strings.Join(vals, ",")}
	}
	p := pod(ns, name, fmt.Sprint(rv), labels...)
	p.Spec.NodeName = fmt.Sprintf("node%d", rng.IntN(4))
	if rng.IntN(8) == 0 {
		p.Spec.NodeName = ""
	}
	return p
}

// runIndexModel applies steps random operations to an indexer and to the
// reference, comparing every index lookup and the invariants after each.
func runIndexModel(t *testing.T, seed uint64, steps int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	s := New[*corev1.Pod](Indexers[*corev1.Pod]{"idx": byIdxLabel})
	ref := refIndexer{}
	indexes := []string{NamespaceIndex, "idx"}
	var buf []*corev1.Pod
	for step := 0; step < steps; step++ {
		var op string
		switch r := rng.IntN(20); {
		case r < 10:
			p := modelPod(rng, step)
			op = "add " + keys.StringOf(p)
			_ = s.Add(p)
			ref[keys.StringOf(p)] = p
		case r < 17:
			p := modelPod(rng, step)
			op = "delete " + keys.StringOf(p)
			_ = s.Delete(p)
			delete(ref, keys.StringOf(p))
		case r < 19:
			n := rng.IntN(20)
			items := make([]*corev1.Pod, 0, n)
			fresh := refIndexer{}
			for i := 0; i < n; i++ {
				p := modelPod(rng, step*100+i)
				if _, dup := fresh[keys.StringOf(p)]; dup {
					continue
				}
				fresh[keys.StringOf(p)] = p
				items = append(items, p)
			}
			op = fmt.Sprintf("replace with %d", len(items))
			_ = s.Replace(items, "")
			ref = fresh
		default:
			if len(indexes) == 3 {
				continue
			}
			op = "add index node"
			if err := s.AddIndexers(Indexers[*corev1.Pod]{"node": byNodeName}); err != nil {
				t.Fatalf("seed %d step %d: AddIndexers: %v", seed, step, err)
			}
			indexes = append(indexes, "node")
		}
		if err := s.checkInvariants(); err != nil {
			t.Fatalf("seed %d step %d (%s): %v", seed, step, op, err)
		}
		if s.Len() != len(ref) {
			t.Fatalf("seed %d step %d (%s): Len %d, want %d", seed, step, op, s.Len(), len(ref))
		}
		for _, index := range indexes {
			want := ref.values(index)
			if got := s.ListIndexFuncValues(index); !reflect.DeepEqual(got, want) {
				t.Fatalf("seed %d step %d (%s): ListIndexFuncValues(%s) = %v, want %v", seed, step, op, index, got, want)
			}
			for _, v := range append(want, "absent") {
				var err error
				buf, err = s.AppendByIndex(buf[:0], index, v)
				if err != nil {
					t.Fatalf("seed %d step %d: AppendByIndex(%s, %s): %v", seed, step, index, v, err)
				}
				got := sortedKeys(buf)
				if !slices.Equal(got, ref.byIndex(index, v)) {
					t.Fatalf("seed %d step %d (%s): AppendByIndex(%s, %s) = %v, want %v", seed, step, op, index, v, got, ref.byIndex(index, v))
				}
				for _, o := range buf {
					if o != ref[keys.StringOf(o)] {
						t.Fatalf("seed %d step %d (%s): AppendByIndex(%s, %s) returned a stale %s", seed, step, op, index, v, keys.StringOf(o))
					}
				}
			}
		}
	}
}

func TestIndexerMatchesReferenceOverRandomOperations(t *testing.T) {
	seeds := 200
	if testing.Short() {
		seeds = 20
	}
	for seed := uint64(0); seed < uint64(seeds); seed++ {
		runIndexModel(t, seed, 300)
	}
}

func FuzzIndexerModel(f *testing.F) {
	for _, seed := range []uint64{1, 7, 42} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, seed uint64) { runIndexModel(t, seed, 200) })
}

func TestIndexerAppendByIndex(t *testing.T) {
	newIdx := func() *Indexer[*corev1.Pod] {
		return New[*corev1.Pod](Indexers[*corev1.Pod]{"app": byLabelApp, "node": byNodeName})
	}
	tests := []struct {
		name          string
		ops           func(s *Indexer[*corev1.Pod])
		index, value  string
		want          []string
		wantErrSubstr string
	}{
		{
			name: "namespace",
			ops: func(s *Indexer[*corev1.Pod]) {
				s.Add(pod("a", "x", "1"))
				s.Add(pod("b", "y", "1"))
				s.Add(pod("a", "z", "1"))
			},
			index: NamespaceIndex, value: "a", want: []string{"a/x", "a/z"},
		},
		{
			name: "update moves the object to its new value",
			ops: func(s *Indexer[*corev1.Pod]) {
				s.Add(pod("ns", "x", "1", "app", "web"))
				s.Add(pod("ns", "y", "1", "app", "web"))
				s.Update(pod("ns", "x", "2", "app", "db"))
			},
			index: "app", value: "web", want: []string{"ns/y"},
		},
		{
			name: "update into the value",
			ops: func(s *Indexer[*corev1.Pod]) {
				s.Add(pod("ns", "x", "1", "app", "web"))
				s.Add(pod("ns", "y", "1", "app", "db"))
				s.Update(pod("ns", "y", "2", "app", "web"))
			},
			index: "app", value: "web", want: []string{"ns/x", "ns/y"},
		},
		{
			name: "delete of the first of several",
			ops: func(s *Indexer[*corev1.Pod]) {
				for _, n := range []string{"a", "b", "c", "d"} {
					s.Add(pod("ns", n, "1", "app", "web"))
				}
				s.Delete(pod("ns", "a", ""))
			},
			index: "app", value: "web", want: []string{"ns/b", "ns/c", "ns/d"},
		},
		{
			name: "object the index function fails on is left out",
			ops: func(s *Indexer[*corev1.Pod]) {
				s.AddIndexers(Indexers[*corev1.Pod]{"strict": func(p *corev1.Pod) ([]string, error) {
					if p.Name == "b" {
						return nil, errors.New("boom")
					}
					return []string{"all"}, nil
				}})
				s.Add(pod("ns", "a", "1"))
				s.Add(pod("ns", "b", "1"))
				s.Add(pod("ns", "c", "1"))
			},
			index: "strict", value: "all", want: []string{"ns/a", "ns/c"},
		},
		{
			name: "object that starts failing is taken out",
			ops: func(s *Indexer[*corev1.Pod]) {
				s.Add(pod("ns", "a", "1", "app", "web"))
				s.Add(pod("ns", "b", "1", "app", "web"))
				s.AddIndexers(Indexers[*corev1.Pod]{"strict": func(p *corev1.Pod) ([]string, error) {
					if p.ResourceVersion == "2" {
						return nil, errors.New("boom")
					}
					return []string{p.Labels["app"]}, nil
				}})
				s.Update(pod("ns", "a", "2", "app", "web"))
			},
			index: "strict", value: "web", want: []string{"ns/b"},
		},
		{
			name:  "unknown index",
			ops:   func(s *Indexer[*corev1.Pod]) { s.Add(pod("ns", "a", "1")) },
			index: "nope", value: "x", wantErrSubstr: `index "nope" does not exist`,
		},
		{
			name:  "absent value",
			ops:   func(s *Indexer[*corev1.Pod]) { s.Add(pod("ns", "a", "1")) },
			index: "node", value: "node-zzz", want: nil,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newIdx()
			tc.ops(s)
			sentinel := pod("keep", "me", "1")
			dst := []*corev1.Pod{sentinel}
			got, err := s.AppendByIndex(dst, tc.index, tc.value)
			if tc.wantErrSubstr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErrSubstr) || len(got) != 1 || got[0] != sentinel {
					t.Fatalf("AppendByIndex = %v, %v; want dst unchanged and an error with %q", sortedKeys(got), err, tc.wantErrSubstr)
				}
				return
			}
			if err != nil || len(got) == 0 || got[0] != sentinel {
				t.Fatalf("AppendByIndex = %v, %v; want dst's element kept first", sortedKeys(got), err)
			}
			if keys := sortedKeys(got[1:]); !slices.Equal(keys, tc.want) && !(len(keys) == 0 && len(tc.want) == 0) {
				t.Fatalf("AppendByIndex appended %v, want %v", keys, tc.want)
			}
			plain, _ := s.ByIndex(tc.index, tc.value)
			if !slices.Equal(plain, got[1:]) {
				t.Fatalf("ByIndex %v and AppendByIndex %v differ", sortedKeys(plain), sortedKeys(got[1:]))
			}
			if err := s.checkInvariants(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestIndexerSwapDeleteOverManyObjects(t *testing.T) {
	s := New[*corev1.Pod](Indexers[*corev1.Pod]{"app": byLabelApp})
	const n = 3000
	for i := 0; i < n; i++ {
		s.Add(pod(fmt.Sprintf("ns%d", i%3), fmt.Sprintf("p%d", i), "1", "app", fmt.Sprintf("a%d", i%2)))
	}
	// Delete in an order unrelated to insertion, checking as we go.
	rng := rand.New(rand.NewPCG(1, 2))
	live := map[int]bool{}
	for i := 0; i < n; i++ {
		live[i] = true
	}
	for _, i := range rng.Perm(n)[:n-10] {
		s.Delete(pod(fmt.Sprintf("ns%d", i%3), fmt.Sprintf("p%d", i), ""))
		delete(live, i)
		if len(live)%250 == 0 {
			if err := s.checkInvariants(); err != nil {
				t.Fatalf("after %d deletes: %v", n-len(live), err)
			}
		}
	}
	var want []string
	for i := range live {
		if i%2 == 0 {
			want = append(want, fmt.Sprintf("ns%d/p%d", i%3, i))
		}
	}
	slices.Sort(want)
	got, _ := s.AppendByIndex(nil, "app", "a0")
	if keys := sortedKeys(got); !slices.Equal(keys, want) {
		t.Fatalf("app=a0 holds %v, want %v", keys, want)
	}
	if err := s.checkInvariants(); err != nil {
		t.Fatal(err)
	}
}

func TestIndexerAppendByIndexWithABufferDoesNotAllocate(t *testing.T) {
	s := New[*corev1.Pod](Indexers[*corev1.Pod]{"node": byNodeName})
	for i := 0; i < 100; i++ {
		p := pod(fmt.Sprintf("ns%d", i%4), fmt.Sprintf("p%d", i), "1")
		p.Spec.NodeName = fmt.Sprintf("n%d", i%5)
		s.Add(p)
	}
	buf := make([]*corev1.Pod, 0, 100)
	for _, q := range [][2]string{{NamespaceIndex, "ns1"}, {"node", "n3"}} {
		allocs := testing.AllocsPerRun(100, func() {
			buf, _ = s.AppendByIndex(buf[:0], q[0], q[1])
		})
		if allocs != 0 || len(buf) == 0 {
			t.Fatalf("AppendByIndex(%s, %s) with a buffer: %v allocations, %d objects", q[0], q[1], allocs, len(buf))
		}
	}
}
