package generators

import (
	"github.com/typedinformer/typedinformer/generators/model"
	"github.com/typedinformer/typedinformer/generators/output"
	"github.com/typedinformer/typedinformer/generators/plan"
	"github.com/typedinformer/typedinformer/generators/targets/clientset"
	"github.com/typedinformer/typedinformer/generators/targets/informers"
)

// planFiles runs the planners of the targets the layout asks for over the
// model, adds the files planned before the output tree was read (the apply
// configurations and the files of the targets that write into the input
// packages) and checks every target's files
// together (plan.Check).
// A new target's planner is called here, and its files go through the same
// check and output stage.
func planFiles(m *model.Model, l plan.Layout, o *Options, tree *output.Tree, planned []plan.File) ([]plan.File, error) {
	if o.packagesOnly() {
		if err := plan.Check(planned); err != nil {
			return nil, err
		}
		return planned, nil
	}
	clientsetPkg := o.VersionedClientsetPackage
	if l.ClientsetPkg != "" {
		clientsetPkg = l.ClientsetPkg
	}
	files, err := informers.Plan(m, l, clientsetPkg, tree.UserDecls)
	if err != nil {
		return nil, err
	}
	if l.ClientsetDir != "" {
		files = append(files, clientset.Plan(m, l, clientset.Options{
			ApplyConfigurationPackage: o.ApplyConfigurationPackage,
			PrefersProtobuf:           o.PrefersProtobuf,
			NoFakeClientset:           o.NoFakeClientset,
		}, tree.Exists)...)
	}
	files = append(files, planned...)
	if err := plan.Check(files); err != nil {
		return nil, err
	}
	return files, nil
}
