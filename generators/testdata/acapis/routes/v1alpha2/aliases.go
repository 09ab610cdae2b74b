package v1alpha2

import v1 "github.com/typedinformer/typedinformer/generators/testdata/acapis/routes/v1"

type (
	CommonRouteSpec = v1.CommonRouteSpec
	MatchResources  = v1.MatchResources
	Hostname        = v1.Hostname
)
