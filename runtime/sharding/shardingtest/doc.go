// Package shardingtest provides an in-memory sharding.LeaseClient for
// tests of code built on sharding.Ring.
package shardingtest
