module github.com/typedinformer/typedinformer/test/soak

go 1.26.0

replace github.com/typedinformer/typedinformer => ../..

replace github.com/typedinformer/typedinformer/examples/crd => ../../examples/crd

replace github.com/typedinformer/typedinformer/test/e2e => ../e2e

replace github.com/typedinformer/typedinformer/metrics/prometheus => ../../metrics/prometheus
