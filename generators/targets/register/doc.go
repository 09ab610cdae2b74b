// Package register is the register target: register-gen's
// zz_generated.register.go in each input package whose doc.go asks for it
// (+groupName=, or +k8s:register-gen with a value other than "false"),
// holding the package's GroupName, GroupVersion, SchemeGroupVersion,
// Resource, SchemeBuilder, AddToScheme and Install, and the addKnownTypes
// function that registers every type of the package embedding TypeMeta.
//
// Which packages get a file is register-gen's (code-generator v0.37.2)
// rule: not when the package has a register.go of its own, not when its
// types' TypeMeta members carry no json tag (an internal package) or no type
// has a TypeMeta member. The group is +groupName's value, else the
// next-to-last element of the import path; the version is the path's last
// element. The file equals register-gen's apart from the "Code generated
// by" line.
//
// Plan is called by the generators package with the run's loader; its files
// go through plan.Check and the output stage with every other target's.
package register
