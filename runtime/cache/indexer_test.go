package cache

import (
	"errors"
	"reflect"
	"sort"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func byNodeName(p *corev1.Pod) ([]string, error) {
	if p.Spec.NodeName == "" {
		return nil, nil
	}
	return []string{p.Spec.NodeName}, nil
}

func byLabelApp(p *corev1.Pod) ([]string, error) {
	if v, ok := p.Labels["app"]; ok {
		return []string{v}, nil
	}
	return nil, nil
}

func TestIndexerStoreOperations(t *testing.T) {
	s := NewIndexer[*corev1.Pod](nil)
	a, b := pod("ns1", "a", "1"), pod("ns2", "b", "2")
	s.Add(a)
	s.Add(b)
	if got, ok, _ := s.GetByKey("ns1/a"); !ok || got != a {
		t.Fatalf("GetByKey = %v, %v", got, ok)
	}
	if got, ok, _ := s.Get(pod("ns2", "b", "")); !ok || got != b {
		t.Fatalf("Get = %v, %v", got, ok)
	}
	a2 := pod("ns1", "a", "3")
	s.Update(a2)
	if got, _, _ := s.GetByKey("ns1/a"); got != a2 {
		t.Fatal("Update did not replace")
	}
	keys := s.ListKeys()
	sort.Strings(keys)
	if !reflect.DeepEqual(keys, []string{"ns1/a", "ns2/b"}) || s.Len() != 2 || len(s.List()) != 2 {
		t.Fatalf("keys %v len %d", keys, s.Len())
	}
	s.Delete(a2)
	s.Delete(pod("ns1", "missing", "")) // not an error
	if _, ok, _ := s.GetByKey("ns1/a"); ok {
		t.Fatal("Delete left the object")
	}
	if _, _, err := s.GetByKey("a/b/c"); err == nil {
		t.Fatal("malformed key accepted")
	}
}

func TestIndexerNamespaceIndexIsBuiltIn(t *testing.T) {
	s := NewIndexer[*corev1.Pod](nil)
	s.Add(pod("ns1", "a", "1"))
	s.Add(pod("ns1", "b", "1"))
	s.Add(pod("ns2", "c", "1"))
	got, err := s.ByIndex(NamespaceIndex, "ns1")
	if err != nil || !reflect.DeepEqual(sortedKeys(got), []string{"ns1/a", "ns1/b"}) {
		t.Fatalf("ByIndex = %v, %v", sortedKeys(got), err)
	}
	if v := s.ListIndexFuncValues(NamespaceIndex); !reflect.DeepEqual(v, []string{"ns1", "ns2"}) {
		t.Fatalf("values %v", v)
	}
	s.Delete(pod("ns2", "c", ""))
	if v := s.ListIndexFuncValues(NamespaceIndex); !reflect.DeepEqual(v, []string{"ns1"}) {
		t.Fatalf("empty namespace value kept: %v", v)
	}
	if _, ok := s.GetIndexers()[NamespaceIndex]; !ok {
		t.Fatal("GetIndexers lacks the namespace index")
	}
	nodes := NewIndexer[*corev1.Node](nil)
	nodes.Add(node("n1", "1"))
	if keys, _ := nodes.IndexKeys(NamespaceIndex, ""); !reflect.DeepEqual(keys, []string{"n1"}) {
		t.Fatalf("cluster-scoped objects index under \"\": %v", keys)
	}
}

func TestIndexerCustomIndexFollowsUpdatesAndDeletes(t *testing.T) {
	s := NewIndexer[*corev1.Pod](Indexers[*corev1.Pod]{"app": byLabelApp})
	s.Add(pod("ns", "a", "1", "app", "web"))
	s.Add(pod("ns", "b", "1", "app", "web"))
	s.Update(pod("ns", "a", "2", "app", "db"))
	web, _ := s.IndexKeys("app", "web")
	db, _ := s.IndexKeys("app", "db")
	if !reflect.DeepEqual(web, []string{"ns/b"}) || !reflect.DeepEqual(db, []string{"ns/a"}) {
		t.Fatalf("web %v db %v", web, db)
	}
	same, err := s.Index("app", pod("x", "probe", "", "app", "web"))
	if err != nil || !reflect.DeepEqual(sortedKeys(same), []string{"ns/b"}) {
		t.Fatalf("Index = %v, %v", sortedKeys(same), err)
	}
	s.Delete(pod("ns", "b", ""))
	if v := s.ListIndexFuncValues("app"); !reflect.DeepEqual(v, []string{"db"}) {
		t.Fatalf("values after delete %v", v)
	}
	if _, err := s.ByIndex("nope", "x"); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Fatalf("unknown index error %v", err)
	}
}

func TestIndexerIndexFuncErrorKeepsTheObjectOutOfThatIndexAndIsReturned(t *testing.T) {
	boom := errors.New("no app label")
	strict := func(p *corev1.Pod) ([]string, error) {
		if v, ok := p.Labels["app"]; ok {
			return []string{v}, nil
		}
		return nil, boom
	}
	s := NewIndexer[*corev1.Pod](Indexers[*corev1.Pod]{"app": strict, "node": byNodeName}).(indexer[*corev1.Pod])
	if err := s.Add(pod("ns", "a", "1", "app", "web")); err != nil {
		t.Fatal(err)
	}
	err := s.Update(pod("ns", "a", "2"))
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "ns/a") || !strings.Contains(err.Error(), `"app"`) {
		t.Fatalf("Update error = %v; want it to wrap the index error and name the index and the object", err)
	}
	if got, _, _ := s.GetByKey("ns/a"); got.ResourceVersion != "2" {
		t.Fatal("the object of a failing index function was not stored")
	}
	if got, _ := s.ByIndex("app", "web"); len(got) != 0 {
		t.Fatalf("the object stayed under its old value: %v", sortedKeys(got))
	}
	if got, _ := s.ByIndex("node", "node-a"); len(got) != 1 {
		t.Fatal("the other indexes lost the object")
	}
	if err := s.ObjectErrors(); !errors.Is(err, boom) {
		t.Fatalf("objectErrors = %v, want the index error remembered", err)
	}
	// Fixed by a later update: indexed again, the error forgotten.
	if err := s.Update(pod("ns", "a", "3", "app", "db")); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.ByIndex("app", "db"); len(got) != 1 || s.ObjectErrors() != nil {
		t.Fatalf("after the fix: ByIndex %v, objectErrors %v", sortedKeys(got), s.ObjectErrors())
	}
	// Replace stores everything and returns the failures.
	if err := s.Replace([]*corev1.Pod{pod("ns", "b", "1"), pod("ns", "c", "1", "app", "x")}, "1"); !errors.Is(err, boom) {
		t.Fatalf("Replace error %v", err)
	}
	if s.Len() != 2 || s.ObjectErrors() == nil {
		t.Fatalf("Replace stored %v, objectErrors %v", s.ListKeys(), s.ObjectErrors())
	}
	// Deleting the object forgets its error.
	s.Delete(pod("ns", "b", "2"))
	if err := s.ObjectErrors(); err != nil {
		t.Fatalf("objectErrors after the delete = %v", err)
	}
}

func TestIndexerPanickingOrNilIndexFuncIsAnErrorNotAPanic(t *testing.T) {
	s := NewIndexer[*corev1.Pod](Indexers[*corev1.Pod]{
		"panics": func(*corev1.Pod) ([]string, error) { panic("oops") },
		"nil":    nil,
	})
	err := s.Add(pod("ns", "a", "1"))
	if err == nil || !strings.Contains(err.Error(), `"panics"`) || !strings.Contains(err.Error(), `"nil"`) {
		t.Fatalf("Add = %v, want errors naming both indexes", err)
	}
	if s.Len() != 1 {
		t.Fatal("object not stored")
	}
	if _, err := s.Index("panics", pod("ns", "a", "1")); err == nil {
		t.Fatal("Index with a panicking function returned no error")
	}
}

func TestIndexerAddIndexersRejectsNilAndClashingFunctions(t *testing.T) {
	s := NewIndexer[*corev1.Pod](nil)
	s.Add(pod("ns", "a", "1"))
	if err := s.AddIndexers(nil); err != nil {
		t.Fatalf("AddIndexers(nil) = %v", err)
	}
	if err := s.AddIndexers(Indexers[*corev1.Pod]{"x": nil}); err == nil || !strings.Contains(err.Error(), `"x"`) {
		t.Fatalf("nil function: %v, want an error naming the index", err)
	}
	if err := s.AddIndexers(Indexers[*corev1.Pod]{"": byNodeName}); err == nil {
		t.Fatal("an unnamed index was accepted")
	}
	if err := s.AddIndexers(Indexers[*corev1.Pod]{NamespaceIndex: MetaNamespaceIndexFunc[*corev1.Pod]}); err == nil {
		t.Fatal("re-adding the namespace index accepted")
	}
	if len(s.GetIndexers()) != 1 {
		t.Fatalf("a rejected AddIndexers added %v", s.GetIndexers())
	}
}

func TestIndexerAddIndexersAfterStartReindexesExistingObjects(t *testing.T) {
	s := NewIndexer[*corev1.Pod](nil)
	s.Add(pod("ns", "a", "1"))
	s.Add(pod("ns", "b", "1"))
	if err := s.AddIndexers(Indexers[*corev1.Pod]{"node": byNodeName}); err != nil {
		t.Fatal(err)
	}
	got, err := s.ByIndex("node", "node-a")
	if err != nil || !reflect.DeepEqual(sortedKeys(got), []string{"ns/a"}) {
		t.Fatalf("ByIndex = %v, %v", sortedKeys(got), err)
	}
	if err := s.AddIndexers(Indexers[*corev1.Pod]{"node": byNodeName}); err == nil || !strings.Contains(err.Error(), `"node"`) {
		t.Fatalf("duplicate index error %v", err)
	}
	if err := s.AddIndexers(Indexers[*corev1.Pod]{NamespaceIndex: MetaNamespaceIndexFunc[*corev1.Pod]}); err == nil {
		t.Fatal("re-adding the namespace index accepted")
	}
	failing := func(p *corev1.Pod) ([]string, error) {
		if p.Name == "a" {
			return nil, errors.New("bad")
		}
		return []string{"ok"}, nil
	}
	if err := s.AddIndexers(Indexers[*corev1.Pod]{"bad": failing}); err == nil || !strings.Contains(err.Error(), "ns/a") {
		t.Fatalf("AddIndexers with a function failing on ns/a = %v, want an error naming it", err)
	}
	if got, err := s.ByIndex("bad", "ok"); err != nil || !reflect.DeepEqual(sortedKeys(got), []string{"ns/b"}) {
		t.Fatalf("the new index holds %v, %v; want ns/b only", sortedKeys(got), err)
	}
}

func TestIndexerReplaceSwapsContentAndIndexes(t *testing.T) {
	s := NewIndexer[*corev1.Pod](Indexers[*corev1.Pod]{"app": byLabelApp})
	s.Add(pod("old", "x", "1", "app", "web"))
	s.Replace([]*corev1.Pod{pod("new", "y", "2", "app", "db")}, "2")
	if keys := s.ListKeys(); !reflect.DeepEqual(keys, []string{"new/y"}) {
		t.Fatalf("keys %v", keys)
	}
	if v := s.ListIndexFuncValues("app"); !reflect.DeepEqual(v, []string{"db"}) {
		t.Fatalf("app values %v", v)
	}
	if v := s.ListIndexFuncValues(NamespaceIndex); !reflect.DeepEqual(v, []string{"new"}) {
		t.Fatalf("ns values %v", v)
	}
}
