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

package v1

import (
	"k8s.io/apimachinery/pkg/labels"

	"github.com/typedinformer/typedinformer/kube/internal/selection"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// StatefulSetListerExpansion holds the lookups client-go's StatefulSetLister has beyond
// List and Get, with the same signatures and results.
type StatefulSetListerExpansion interface {
	// GetPodStatefulSets returns the controllers whose selector matches the pod's labels.
	GetPodStatefulSets(pod *corev1.Pod) ([]*appsv1.StatefulSet, error)
}

// GetPodStatefulSets returns the StatefulSets of the pod's namespace whose
// selector matches the pod's labels: an empty or nil selector selects
// nothing, and one that does not parse selects nothing. Only the one named
// by the pod's controller reference, if any, manages the pod. It returns an
// error when none matches or the pod has no labels.
func (s *statefulSetLister) GetPodStatefulSets(pod *corev1.Pod) ([]*appsv1.StatefulSet, error) {
	if len(pod.Labels) == 0 {
		return nil, selection.NoLabels("Pod", pod, "StatefulSets")
	}
	candidates, err := s.StatefulSets(pod.Namespace).List(labels.Everything())
	if err != nil {
		return nil, err
	}
	matched := selection.Selecting(candidates, labels.Set(pod.Labels), selection.EmptyMatchesNothing, func(o *appsv1.StatefulSet) (labels.Selector, error) { return selection.LabelSelector(o.Spec.Selector) })
	if len(matched) == 0 {
		return nil, selection.NoneFound("Pod", pod, "StatefulSets")
	}
	return matched, nil
}
