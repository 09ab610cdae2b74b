package corpus

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/typedinformer/typedinformer/generators"
)

const (
	modulePath = "github.com/typedinformer/typedinformer/test/corpus"
	clientset  = "k8s.io/client-go/kubernetes"
	// kubeGroupVersions is the number of k8s.io/api v0.37.2 packages that
	// carry +genclient.
	kubeGroupVersions = 56
)

// kubeOptions generates for every k8s.io/api package into outDir, whose
// import path is outPkg.
func kubeOptions(outDir, outPkg string) generators.Options {
	return generators.Options{
		Patterns:                  []string{"k8s.io/api/..."},
		OutputDir:                 outDir,
		OutputPkg:                 outPkg,
		VersionedClientsetPackage: clientset,
		Now:                       func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) },
	}
}

// TestKubeAPICorpus generates informers and listers for every k8s.io/api
// group-version with +genclient into a directory of this module, then builds
// and vets the result against k8s.io/client-go/kubernetes: the generated
// calls such as client.CoreV1().Endpoints(ns) compile only if every group,
// version and plural name matches client-gen's. It also checks that the
// informers are exactly the ones client-go ships.
func TestKubeAPICorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("builds k8s.io/client-go/kubernetes; skipped in -short mode")
	}
	ctx := context.Background()
	// A directory of its own, so that concurrent runs do not collide.
	dir, err := os.MkdirTemp(".", "zz_gen_")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	name := filepath.Base(dir)

	res, err := generators.Generate(ctx, kubeOptions(dir, modulePath+"/"+name))
	if err != nil {
		t.Fatalf("generate: %v", err)
	}
	if res.GenclientPackages != kubeGroupVersions {
		t.Errorf("found %d packages with +genclient, want %d", res.GenclientPackages, kubeGroupVersions)
	}
	t.Logf("%d packages, %d with +genclient, %d group-versions with informers or listers, %d files",
		res.Packages, res.GenclientPackages, res.Model.GroupVersionCount(), len(res.Files))

	// A file that spells out names users rely on, compiled with the rest.
	check := filepath.Join(dir, "namecheck")
	if err := os.MkdirAll(check, 0o755); err != nil {
		t.Fatal(err)
	}
	for file, src := range map[string]string{"namecheck.go": nameCheck, "typednames.go": typedNameCheck} {
		if err := os.WriteFile(filepath.Join(check, file), []byte(strings.ReplaceAll(src, "OUT", modulePath+"/"+name)), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	for _, args := range [][]string{{"build", "./" + name + "/..."}, {"vet", "./" + name + "/..."}} {
		start := time.Now()
		cmd := exec.CommandContext(ctx, "go", args...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		t.Logf("go %s: %v", strings.Join(args, " "), time.Since(start).Round(time.Millisecond))
	}

	compareWithClientGo(t, dir)
}

// nameCheck uses accessors whose names client-gen derives in special ways.
const nameCheck = `package namecheck

import (
	"k8s.io/client-go/kubernetes"

	informers "OUT/informers/externalversions"
)

// Use spells out accessor names that need client-gen's naming rules.
func Use(client kubernetes.Interface) {
	f := informers.NewSharedInformerFactory(client, 0)
	_ = f.Core().V1().Endpoints().Lister()                      // Endpoints:Endpoints exception
	_ = f.Networking().V1().Ingresses().Informer()              // -ss → -sses
	_ = f.Networking().V1beta1().IngressClasses().Lister()      //
	_ = f.Flowcontrol().V1().PriorityLevelConfigurations()      // group flowcontrol.apiserver.k8s.io
	_ = f.Internal().V1alpha1().StorageVersions()               // internal.apiserver.k8s.io → Internal
	_ = f.Storage().V1alpha1().VolumeAttributesClasses()        //
	_ = f.Resource().V1beta1().ResourceClaims()                 //
	_ = f.Rbac().V1().ClusterRoles().Lister()                   // cluster-scoped
	_ = f.Policy().V1().PodDisruptionBudgets().Lister()         // group from const GroupName
	_ = f.Autoscaling().V2().HorizontalPodAutoscalers()         //
	_ = f.Admissionregistration().V1().ValidatingAdmissionPolicies()
	_ = informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespaces("a", "b"))
}
`

// typedNameCheck uses every name code-generator v0.37's informer-gen emits
// for a type (Pod, namespaced, and Node, cluster-scoped), with the types
// spelt out, so that the corpus build fails if one is missing or changes
// shape. Where client-go's are untyped (cache.SharedIndexInformer,
// cache.Indexers) ours take the object type; InformerOptions serves every
// type, as client-go's does, holding the typed indexers as cache.AnyIndexers.
const typedNameCheck = `package namecheck

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/typedinformer/typedinformer/runtime/cache"

	informers "OUT/informers/externalversions"
	coreinformers "OUT/informers/externalversions/core/v1"
	"OUT/informers/externalversions/internalinterfaces"
	corelisters "OUT/listers/core/v1"
)

// UseTyped spells out client-go v0.37's typed informer names.
func UseTyped(client kubernetes.Interface, name *cache.InformerName) {
	var f informers.SharedInformerFactory = informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithInformerName(name))
	var _ *cache.InformerName = f.InformerName()

	var typed coreinformers.TypedPodInformer = f.Core().V1().Pods()
	var _ coreinformers.PodInformer = typed
	var _ cache.SharedIndexInformer[*corev1.Pod] = typed.Informer()
	var idx coreinformers.PodIndexInformer = typed.TypedInformer()
	var _ corelisters.PodLister = typed.Lister()
	var _ cache.TypedSharedIndexInformer[*corev1.Pod] = idx
	var _ cache.TypedIndexer[*corev1.Pod] = idx.GetTypedIndexer()

	var handler coreinformers.PodHandlerFuncs = cache.TypedResourceEventHandlerFuncs[*corev1.Pod]{}
	_, _ = idx.AddTypedEventHandler(handler)
	var _ coreinformers.PodDetailedHandlerFuncs = cache.TypedResourceEventHandlerDetailedFuncs[*corev1.Pod]{}
	var _ coreinformers.PodFilteringHandler = cache.TypedFilteringResourceEventHandler[*corev1.Pod]{}
	var indexers coreinformers.PodIndexers = cache.TypedIndexers[*corev1.Pod]{}
	_ = idx.AddTypedIndexers(indexers)
	var _ coreinformers.DeletedPod = cache.DeletedObject[*corev1.Pod]{}

	tweak := func(*metav1.ListOptions) {}
	opts := internalinterfaces.InformerOptions{
		ResyncPeriod:     time.Minute,
		Indexers:         cache.TypedIndexersToIndexers(indexers),
		InformerName:     name,
		TweakListOptions: tweak,
	}
	var plain cache.SharedIndexInformer[*corev1.Pod] = coreinformers.NewPodInformer(client, "ns", time.Minute, cache.Indexers[*corev1.Pod]{})
	plain = coreinformers.NewFilteredPodInformer(client, "ns", time.Minute, cache.Indexers[*corev1.Pod]{}, tweak)
	plain = coreinformers.NewPodInformerWithOptions(client, "ns", opts)
	idx = coreinformers.NewTypedPodInformer(client, "ns", time.Minute, indexers)
	idx = coreinformers.NewTypedFilteredPodInformer(client, "ns", time.Minute, indexers, tweak)
	idx = coreinformers.NewTypedPodInformerWithOptions(client, "ns", opts)
	idx = coreinformers.ToPodIndexInformer(plain)
	typed = coreinformers.ToTypedPodInformer(typed)
	_, _ = idx, typed

	var nodes coreinformers.TypedNodeInformer = f.Core().V1().Nodes()
	var _ coreinformers.NodeIndexInformer = nodes.TypedInformer()
	var _ coreinformers.NodeIndexInformer = coreinformers.NewTypedNodeInformerWithOptions(client, internalinterfaces.InformerOptions{})
	var _ coreinformers.NodeIndexInformer = coreinformers.NewTypedFilteredNodeInformer(client, 0, coreinformers.NodeIndexers{}, nil)
	var _ coreinformers.TypedNodeInformer = coreinformers.ToTypedNodeInformer(nodes)
	var _ coreinformers.DeletedNode = cache.DeletedObject[*corev1.Node]{}
}
`

// compareWithClientGo checks that the informer files are the generated files
// of client-go's informers package, and the lister files the generated files
// of its listers package except the listers client-go's lister-gen emits for verb-less types
// (Eviction, ImageReview), which cannot be listed.
func compareWithClientGo(t *testing.T, dir string) {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "k8s.io/client-go").Output()
	if err != nil {
		t.Fatalf("locating k8s.io/client-go: %v", err)
	}
	clientGo := strings.TrimSpace(string(out))
	for _, c := range []struct {
		ours, theirs string
		skip         []string
	}{
		{filepath.Join(dir, "informers", "externalversions"), filepath.Join(clientGo, "informers"), nil},
		{filepath.Join(dir, "listers"), filepath.Join(clientGo, "listers"), []string{"policy/v1/eviction.go", "policy/v1beta1/eviction.go", "imagepolicy/v1alpha1/imagereview.go", "imagepolicy/v1alpha1/expansion_generated.go"}},
	} {
		ours, theirs := goFiles(t, c.ours), goFiles(t, c.theirs)
		theirs = slices.DeleteFunc(theirs, func(f string) bool {
			return slices.Contains(c.skip, f) || !isGenerated(t, filepath.Join(c.theirs, f))
		})
		if !slices.Equal(ours, theirs) {
			t.Errorf("files under %s differ from client-go's %s:\nonly ours: %v\nonly client-go: %v", c.ours, c.theirs, minus(ours, theirs), minus(theirs, ours))
		}
	}
}

// goFiles lists the non-test .go files under root, relative and sorted.
func goFiles(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			rel, _ := filepath.Rel(root, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	return files
}

func minus(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// isGenerated reports whether a file carries a "Code generated" marker.
func isGenerated(t *testing.T, p string) bool {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return strings.HasPrefix(string(data), "// Code generated by ") || strings.Contains(string(data), "\n// Code generated by ")
}
