package scenario

import "testing"

// TestShardHoldsTheReplicasShare runs the sharded-informer scenario on a
// small list: one shard holds every Pod, two shards hold a strict part of
// them, and every run retains something.
func TestShardHoldsTheReplicasShare(t *testing.T) {
	const n = 2000
	one, err := Shard(n, 1)
	if err != nil {
		t.Fatal(err)
	}
	two, err := Shard(n, 2)
	if err != nil {
		t.Fatal(err)
	}
	if one.Held != n {
		t.Errorf("1 shard holds %d of %d Pods", one.Held, n)
	}
	if two.Held <= 0 || two.Held >= n {
		t.Errorf("2 shards: replica-0 holds %d of %d Pods", two.Held, n)
	}
	if one.Retained() <= 0 || two.Retained() <= 0 {
		t.Errorf("retained %v and %v bytes", one.Retained(), two.Retained())
	}
	if _, err := Shard(n, 0); err == nil {
		t.Error("0 shards accepted")
	}
}
