package versioned

import (
	"github.com/typedinformer/typedinformer/generators/testdata/restclient"
	"github.com/typedinformer/typedinformer/runtime/fake"

	certmanagerv1 "github.com/typedinformer/typedinformer/generators/testdata/apis/cert-manager/v1"
	corev1 "github.com/typedinformer/typedinformer/generators/testdata/apis/core/v1"
	examplev1 "github.com/typedinformer/typedinformer/generators/testdata/apis/example/v1"
	examplev1alpha1 "github.com/typedinformer/typedinformer/generators/testdata/apis/example/v1alpha1"
	thirdpartyv2beta1 "github.com/typedinformer/typedinformer/generators/testdata/apis/thirdparty/v2beta1"
)

// Fake is an in-memory Interface: each resource is served by one of the
// runtime's fake API servers, which tests fill and change through the
// exported fields. Safe for concurrent use.
type Fake struct {
	Widgets         *fake.Server[*examplev1.Widget]
	Gadgets         *fake.Server[*examplev1.Gadget]
	Policies        *fake.Server[*examplev1.Policy]
	NodeMetricses   *fake.Server[*examplev1.NodeMetrics]
	Reports         *fake.Server[*examplev1.Report]
	Secrets         *fake.Server[*examplev1.Secret]
	Things          *fake.Server[*examplev1.Thing]
	Endpoints       *fake.Server[*examplev1.Endpoints]
	WidgetsV1alpha1 *fake.Server[*examplev1alpha1.Widget]
	Certificates    *fake.Server[*certmanagerv1.Certificate]
	Pods            *fake.Server[*corev1.Pod]
	Nodes           *fake.Server[*corev1.Node]
	Buckets         *fake.Server[*thirdpartyv2beta1.Bucket]
}

// NewFake returns a Fake whose servers are empty.
func NewFake() *Fake {
	return &Fake{
		Widgets:         fake.NewServer[*examplev1.Widget](),
		Gadgets:         fake.NewServer[*examplev1.Gadget](),
		Policies:        fake.NewServer[*examplev1.Policy](),
		NodeMetricses:   fake.NewServer[*examplev1.NodeMetrics](),
		Reports:         fake.NewServer[*examplev1.Report](),
		Secrets:         fake.NewServer[*examplev1.Secret](),
		Things:          fake.NewServer[*examplev1.Thing](),
		Endpoints:       fake.NewServer[*examplev1.Endpoints](),
		WidgetsV1alpha1: fake.NewServer[*examplev1alpha1.Widget](),
		Certificates:    fake.NewServer[*certmanagerv1.Certificate](),
		Pods:            fake.NewServer[*corev1.Pod](),
		Nodes:           fake.NewServer[*corev1.Node](),
		Buckets:         fake.NewServer[*thirdpartyv2beta1.Bucket](),
	}
}

var _ Interface = (*Fake)(nil)

func (f *Fake) ExampleV1() ExampleV1Interface             { return exampleV1{f} }
func (f *Fake) ExampleV1alpha1() ExampleV1alpha1Interface { return exampleV1alpha1{f} }
func (f *Fake) CertmanagerV1() CertmanagerV1Interface     { return certmanagerV1{f} }
func (f *Fake) CoreV1() CoreV1Interface                   { return coreV1{f} }
func (f *Fake) ThirdPartyV2beta1() ThirdPartyV2beta1Interface {
	return thirdPartyV2beta1{f}
}

type exampleV1 struct{ f *Fake }

// RESTClient returns a nil REST client, as client-go's fakes do.
func (exampleV1) RESTClient() restclient.Interface { return (*restclient.RESTClient)(nil) }

func (c exampleV1) Widgets(ns string) ListWatcher   { return c.f.Widgets.ListerWatcher(ns) }
func (c exampleV1) Gadgets() ListWatcher            { return c.f.Gadgets.ListerWatcher("") }
func (c exampleV1) Policies(ns string) ListWatcher  { return c.f.Policies.ListerWatcher(ns) }
func (c exampleV1) NodeMetricses() ListWatcher      { return c.f.NodeMetricses.ListerWatcher("") }
func (c exampleV1) Reports(ns string) ListWatcher   { return c.f.Reports.ListerWatcher(ns) }
func (c exampleV1) Secrets(ns string) ListWatcher   { return c.f.Secrets.ListerWatcher(ns) }
func (c exampleV1) Things(ns string) ListWatcher    { return c.f.Things.ListerWatcher(ns) }
func (c exampleV1) Endpoints(ns string) ListWatcher { return c.f.Endpoints.ListerWatcher(ns) }

type exampleV1alpha1 struct{ f *Fake }

// RESTClient returns a nil REST client, as client-go's fakes do.
func (exampleV1alpha1) RESTClient() restclient.Interface { return (*restclient.RESTClient)(nil) }

func (c exampleV1alpha1) Widgets(ns string) ListWatcher { return c.f.WidgetsV1alpha1.ListerWatcher(ns) }

type certmanagerV1 struct{ f *Fake }

// RESTClient returns a nil REST client, as client-go's fakes do.
func (certmanagerV1) RESTClient() restclient.Interface { return (*restclient.RESTClient)(nil) }

func (c certmanagerV1) Certificates(ns string) ListWatcher { return c.f.Certificates.ListerWatcher(ns) }

type coreV1 struct{ f *Fake }

// RESTClient returns a nil REST client, as client-go's fakes do.
func (coreV1) RESTClient() restclient.Interface { return (*restclient.RESTClient)(nil) }

func (c coreV1) Pods(ns string) ListWatcher { return c.f.Pods.ListerWatcher(ns) }
func (c coreV1) Nodes() ListWatcher         { return c.f.Nodes.ListerWatcher("") }

type thirdPartyV2beta1 struct{ f *Fake }

// RESTClient returns a nil REST client, as client-go's fakes do.
func (thirdPartyV2beta1) RESTClient() restclient.Interface { return (*restclient.RESTClient)(nil) }

func (c thirdPartyV2beta1) Buckets() ListWatcher { return c.f.Buckets.ListerWatcher("") }
