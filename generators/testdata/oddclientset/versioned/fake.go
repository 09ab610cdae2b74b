package versioned

import (
	"github.com/typedinformer/typedinformer/generators/testdata/restclient"
	corev1 "k8s.io/api/core/v1"

	"github.com/typedinformer/typedinformer/runtime/fake"

	mythingsv1 "github.com/typedinformer/typedinformer/generators/testdata/oddapis/my-things/v1"
	shopv1 "github.com/typedinformer/typedinformer/generators/testdata/oddapis/shop/v1"
	shopv2 "github.com/typedinformer/typedinformer/generators/testdata/oddapis/shop/v2"
	shopv3beta1 "github.com/typedinformer/typedinformer/generators/testdata/oddapis/shop/v3beta1"
	typego "github.com/typedinformer/typedinformer/generators/testdata/oddapis/type/go"
)

// Fake is an in-memory Interface: each resource is served by one of the
// runtime's fake API servers, filled by tests through the exported fields.
// Safe for concurrent use.
type Fake struct {
	SprocketsV1 *fake.Server[*shopv1.Sprocket]
	CogsV1      *fake.Server[*shopv1.Cog]
	Ñandus      *fake.Server[*shopv1.Ñandu]
	Wheels      *fake.Server[*shopv1.Wheel]
	Gizmos      *fake.Server[*shopv1.Gizmo]
	SprocketsV2 *fake.Server[*shopv2.Sprocket]
	CogsV2      *fake.Server[*shopv2.Cog]
	Pods        *fake.Server[*shopv3beta1.Pod]
	Nodes       *fake.Server[*shopv3beta1.Node]
	Things      *fake.Server[*mythingsv1.Thing]
	Widgets     *fake.Server[*typego.Widget]
}

// NewFake returns a Fake whose servers are empty.
func NewFake() *Fake {
	return &Fake{
		SprocketsV1: fake.NewServer[*shopv1.Sprocket](),
		CogsV1:      fake.NewServer[*shopv1.Cog](),
		Ñandus:      fake.NewServer[*shopv1.Ñandu](),
		Wheels:      fake.NewServer[*shopv1.Wheel](),
		Gizmos:      fake.NewServer[*shopv1.Gizmo](),
		SprocketsV2: fake.NewServer[*shopv2.Sprocket](),
		CogsV2:      fake.NewServer[*shopv2.Cog](),
		Pods:        fake.NewServer[*corev1.Pod](),
		Nodes:       fake.NewServer[*shopv3beta1.Node](),
		Things:      fake.NewServer[*mythingsv1.Thing](),
		Widgets:     fake.NewServer[*typego.Widget](),
	}
}

var _ Interface = (*Fake)(nil)

// ShopV1 returns the shop.example.com/v1 client.
func (f *Fake) ShopV1() ShopV1Interface { return shopV1{f} }

// ShopV2 returns the shop.example.com/v2 client.
func (f *Fake) ShopV2() ShopV2Interface { return shopV2{f} }

// ShopV3beta1 returns the shop.example.com/v3beta1 client.
func (f *Fake) ShopV3beta1() ShopV3beta1Interface { return shopV3beta1{f} }

// MyThingsV1 returns the my-things.example.com/v1 client.
func (f *Fake) MyThingsV1() MyThingsV1Interface { return myThingsV1{f} }

// TypeGo returns the type.example.com/go client.
func (f *Fake) TypeGo() TypeGoInterface { return typeGo{f} }

type shopV1 struct{ f *Fake }

// RESTClient returns a nil REST client, as client-go's fakes do.
func (shopV1) RESTClient() restclient.Interface { return (*restclient.RESTClient)(nil) }

func (c shopV1) Sprockets(ns string) ListWatcher { return c.f.SprocketsV1.ListerWatcher(ns) }
func (c shopV1) Cogs(ns string) ListWatcher      { return c.f.CogsV1.ListerWatcher(ns) }
func (c shopV1) Ñandus() ListWatcher             { return c.f.Ñandus.ListerWatcher("") }
func (c shopV1) Wheels(ns string) ListWatcher    { return c.f.Wheels.ListerWatcher(ns) }
func (c shopV1) Gizmos(ns string) ListWatcher    { return c.f.Gizmos.ListerWatcher(ns) }

type shopV2 struct{ f *Fake }

// RESTClient returns a nil REST client, as client-go's fakes do.
func (shopV2) RESTClient() restclient.Interface { return (*restclient.RESTClient)(nil) }

func (c shopV2) Sprockets(ns string) ListWatcher { return c.f.SprocketsV2.ListerWatcher(ns) }
func (c shopV2) Cogs(ns string) ListWatcher      { return c.f.CogsV2.ListerWatcher(ns) }

type shopV3beta1 struct{ f *Fake }

// RESTClient returns a nil REST client, as client-go's fakes do.
func (shopV3beta1) RESTClient() restclient.Interface { return (*restclient.RESTClient)(nil) }

func (c shopV3beta1) Pods(ns string) ListWatcher { return c.f.Pods.ListerWatcher(ns) }
func (c shopV3beta1) Nodes() ListWatcher         { return c.f.Nodes.ListerWatcher("") }

type myThingsV1 struct{ f *Fake }

// RESTClient returns a nil REST client, as client-go's fakes do.
func (myThingsV1) RESTClient() restclient.Interface { return (*restclient.RESTClient)(nil) }

func (c myThingsV1) Things(ns string) ListWatcher { return c.f.Things.ListerWatcher(ns) }

type typeGo struct{ f *Fake }

// RESTClient returns a nil REST client, as client-go's fakes do.
func (typeGo) RESTClient() restclient.Interface { return (*restclient.RESTClient)(nil) }

func (c typeGo) Widgets(ns string) ListWatcher { return c.f.Widgets.ListerWatcher(ns) }
