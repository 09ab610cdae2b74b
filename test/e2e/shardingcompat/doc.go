// Package shardingcompat holds tests that check runtime/sharding against
// the apiserver's own implementation of KEP-5866 shard selectors (the
// parser in k8s.io/apiserver/pkg/sharding and the matcher and hash in
// k8s.io/apimachinery/pkg/sharding, v0.37). It needs no running
// apiserver: it calls those packages directly, which the main module
// cannot import because it supports Kubernetes libraries from v0.35 on.
package shardingcompat
