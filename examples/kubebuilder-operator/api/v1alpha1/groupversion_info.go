/*
Copyright 2026 The typedinformer Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// controller-runtime's pkg/scheme.Builder, which kubebuilder's scaffold
// uses, is deprecated (an API package should not import controller-runtime),
// so the API registers itself with apimachinery's SchemeBuilder.

var (
	// GroupVersion is the API's group and version.
	GroupVersion = schema.GroupVersion{Group: "web.example.com", Version: "v1alpha1"}

	// SchemeBuilder registers the API's types with a scheme.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)

	// AddToScheme adds the API's types to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

// addKnownTypes registers Webapp and WebappList, and the meta/v1 types
// every group-version has (ListOptions, ...), under GroupVersion.
func addKnownTypes(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &Webapp{}, &WebappList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}
