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

// DaemonSetListerExpansion holds the lookups client-go's DaemonSetLister has beyond
// List and Get, with the same signatures and results.
type DaemonSetListerExpansion interface {
	// GetPodDaemonSets returns the controllers whose selector matches the pod's labels.
	GetPodDaemonSets(pod *corev1.Pod) ([]*appsv1.DaemonSet, error)
	// GetHistoryDaemonSets returns the controllers whose selector matches the history's labels.
	GetHistoryDaemonSets(history *appsv1.ControllerRevision) ([]*appsv1.DaemonSet, error)
}

// GetPodDaemonSets returns the DaemonSets of the pod's namespace whose
// selector matches the pod's labels: an empty or nil selector selects
// nothing, and one that does not parse selects nothing. Only the one named
// by the pod's controller reference, if any, manages the pod. It returns an
// error when none matches or the pod has no labels.
func (s *daemonSetLister) GetPodDaemonSets(pod *corev1.Pod) ([]*appsv1.DaemonSet, error) {
	if len(pod.Labels) == 0 {
		return nil, selection.NoLabels("Pod", pod, "DaemonSets")
	}
	candidates, err := s.DaemonSets(pod.Namespace).List(labels.Everything())
	if err != nil {
		return nil, err
	}
	matched := selection.Selecting(candidates, labels.Set(pod.Labels), selection.EmptyMatchesNothing, func(o *appsv1.DaemonSet) (labels.Selector, error) { return selection.LabelSelector(o.Spec.Selector) })
	if len(matched) == 0 {
		return nil, selection.NoneFound("Pod", pod, "DaemonSets")
	}
	return matched, nil
}

// GetHistoryDaemonSets returns the DaemonSets of the history's namespace
// whose selector matches the history's labels: an empty or nil selector
// selects nothing, and one that does not parse selects nothing. Only the one
// named by the history's controller reference, if any, manages the history.
// It returns an error when none matches or the history has no labels.
func (s *daemonSetLister) GetHistoryDaemonSets(history *appsv1.ControllerRevision) ([]*appsv1.DaemonSet, error) {
	if len(history.Labels) == 0 {
		return nil, selection.NoLabels("ControllerRevision", history, "DaemonSets")
	}
	candidates, err := s.DaemonSets(history.Namespace).List(labels.Everything())
	if err != nil {
		return nil, err
	}
	matched := selection.Selecting(candidates, labels.Set(history.Labels), selection.EmptyMatchesNothing, func(o *appsv1.DaemonSet) (labels.Selector, error) { return selection.LabelSelector(o.Spec.Selector) })
	if len(matched) == 0 {
		return nil, selection.NoneFound("ControllerRevision", history, "DaemonSets")
	}
	return matched, nil
}
