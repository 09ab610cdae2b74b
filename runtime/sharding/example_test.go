package sharding_test

import (
	"fmt"

	"github.com/typedinformer/typedinformer/runtime/sharding"
)

// A replica computes its ranges from the live members, renders them as
// the ListOptions.ShardSelector value, and uses Owns when the server did
// not apply the selector.
func Example() {
	ranges, err := sharding.Assign([]string{"ctrl-0"}, sharding.DefaultVNodes)
	if err != nil {
		panic(err)
	}
	sel, err := sharding.Selector(sharding.FieldNamespace, ranges["ctrl-0"])
	if err != nil {
		panic(err)
	}
	fmt.Println(sel)
	fmt.Println(sharding.Owns(sharding.FieldNamespace, ranges["ctrl-0"], "team-a-prod", ""))

	three, _ := sharding.Assign([]string{"ctrl-0", "ctrl-1", "ctrl-2"}, sharding.DefaultVNodes)
	owners := 0
	for _, m := range []string{"ctrl-0", "ctrl-1", "ctrl-2"} {
		if sharding.Owns(sharding.FieldNamespace, three[m], "team-a-prod", "") {
			owners++
		}
	}
	fmt.Println("owners of team-a-prod among three:", owners)
	// Output:
	// shardRange(object.metadata.namespace, '0x0000000000000000', '0x10000000000000000')
	// true
	// owners of team-a-prod among three: 1
}
