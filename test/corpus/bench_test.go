package corpus

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/typedinformer/typedinformer/generators"
)

// BenchmarkGenerateKubeAPI measures one whole informer-gen run over every
// k8s.io/api group-version with +genclient: resolving the packages, parsing
// them, rendering and formatting every file and writing them to an empty
// directory.
func BenchmarkGenerateKubeAPI(b *testing.B) {
	ctx := context.Background()
	root := b.TempDir()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		out := filepath.Join(root, strconv.Itoa(i))
		res, err := generators.Generate(ctx, kubeOptions(out, "example.com/bench/generated"))
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Files) == 0 {
			b.Fatal("no files")
		}
	}
}
