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

// Package v1alpha1 is the web.example.com/v1alpha1 API: the Webapp kind.
//
// deepcopy-gen (and informer-gen --deepcopy-only) read package tags from
// doc.go only, so they are here rather than in groupversion_info.go.
//
// +kubebuilder:object:generate=true
// +k8s:deepcopy-gen=package
// +groupName=web.example.com
package v1alpha1
