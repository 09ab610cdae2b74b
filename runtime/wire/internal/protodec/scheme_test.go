package protodec_test

// The k8s.io/api packages whose types the equality tests decode: every
// group-version present in both the oldest (go.mod's) and the newest
// supported k8s.io/api.

import (
	"k8s.io/apimachinery/pkg/runtime"

	admissionv1 "k8s.io/api/admission/v1"
	admissionv1beta1 "k8s.io/api/admission/v1beta1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	admissionregistrationv1alpha1 "k8s.io/api/admissionregistration/v1alpha1"
	admissionregistrationv1beta1 "k8s.io/api/admissionregistration/v1beta1"
	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	apidiscoveryv2beta1 "k8s.io/api/apidiscovery/v2beta1"
	apiserverinternalv1alpha1 "k8s.io/api/apiserverinternal/v1alpha1"
	appsv1 "k8s.io/api/apps/v1"
	appsv1beta1 "k8s.io/api/apps/v1beta1"
	appsv1beta2 "k8s.io/api/apps/v1beta2"
	authenticationv1 "k8s.io/api/authentication/v1"
	authenticationv1alpha1 "k8s.io/api/authentication/v1alpha1"
	authenticationv1beta1 "k8s.io/api/authentication/v1beta1"
	authorizationv1 "k8s.io/api/authorization/v1"
	authorizationv1beta1 "k8s.io/api/authorization/v1beta1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	batchv1beta1 "k8s.io/api/batch/v1beta1"
	certificatesv1 "k8s.io/api/certificates/v1"
	certificatesv1alpha1 "k8s.io/api/certificates/v1alpha1"
	certificatesv1beta1 "k8s.io/api/certificates/v1beta1"
	coordinationv1 "k8s.io/api/coordination/v1"
	coordinationv1alpha2 "k8s.io/api/coordination/v1alpha2"
	coordinationv1beta1 "k8s.io/api/coordination/v1beta1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	discoveryv1beta1 "k8s.io/api/discovery/v1beta1"
	eventsv1 "k8s.io/api/events/v1"
	eventsv1beta1 "k8s.io/api/events/v1beta1"
	extensionsv1beta1 "k8s.io/api/extensions/v1beta1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	flowcontrolv1beta1 "k8s.io/api/flowcontrol/v1beta1"
	flowcontrolv1beta2 "k8s.io/api/flowcontrol/v1beta2"
	flowcontrolv1beta3 "k8s.io/api/flowcontrol/v1beta3"
	imagepolicyv1alpha1 "k8s.io/api/imagepolicy/v1alpha1"
	networkingv1 "k8s.io/api/networking/v1"
	networkingv1beta1 "k8s.io/api/networking/v1beta1"
	nodev1 "k8s.io/api/node/v1"
	nodev1alpha1 "k8s.io/api/node/v1alpha1"
	nodev1beta1 "k8s.io/api/node/v1beta1"
	policyv1 "k8s.io/api/policy/v1"
	policyv1beta1 "k8s.io/api/policy/v1beta1"
	rbacv1 "k8s.io/api/rbac/v1"
	rbacv1alpha1 "k8s.io/api/rbac/v1alpha1"
	rbacv1beta1 "k8s.io/api/rbac/v1beta1"
	resourcev1 "k8s.io/api/resource/v1"
	resourcev1alpha3 "k8s.io/api/resource/v1alpha3"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	resourcev1beta2 "k8s.io/api/resource/v1beta2"
	schedulingv1 "k8s.io/api/scheduling/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	storagev1 "k8s.io/api/storage/v1"
	storagev1alpha1 "k8s.io/api/storage/v1alpha1"
	storagev1beta1 "k8s.io/api/storage/v1beta1"
	storagemigrationv1beta1 "k8s.io/api/storagemigration/v1beta1"
)

func apiScheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		admissionv1.AddToScheme,
		admissionv1beta1.AddToScheme,
		admissionregistrationv1.AddToScheme,
		admissionregistrationv1alpha1.AddToScheme,
		admissionregistrationv1beta1.AddToScheme,
		apidiscoveryv2.AddToScheme,
		apidiscoveryv2beta1.AddToScheme,
		apiserverinternalv1alpha1.AddToScheme,
		appsv1.AddToScheme,
		appsv1beta1.AddToScheme,
		appsv1beta2.AddToScheme,
		authenticationv1.AddToScheme,
		authenticationv1alpha1.AddToScheme,
		authenticationv1beta1.AddToScheme,
		authorizationv1.AddToScheme,
		authorizationv1beta1.AddToScheme,
		autoscalingv1.AddToScheme,
		autoscalingv2.AddToScheme,
		batchv1.AddToScheme,
		batchv1beta1.AddToScheme,
		certificatesv1.AddToScheme,
		certificatesv1alpha1.AddToScheme,
		certificatesv1beta1.AddToScheme,
		coordinationv1.AddToScheme,
		coordinationv1alpha2.AddToScheme,
		coordinationv1beta1.AddToScheme,
		corev1.AddToScheme,
		discoveryv1.AddToScheme,
		discoveryv1beta1.AddToScheme,
		eventsv1.AddToScheme,
		eventsv1beta1.AddToScheme,
		extensionsv1beta1.AddToScheme,
		flowcontrolv1.AddToScheme,
		flowcontrolv1beta1.AddToScheme,
		flowcontrolv1beta2.AddToScheme,
		flowcontrolv1beta3.AddToScheme,
		imagepolicyv1alpha1.AddToScheme,
		networkingv1.AddToScheme,
		networkingv1beta1.AddToScheme,
		nodev1.AddToScheme,
		nodev1alpha1.AddToScheme,
		nodev1beta1.AddToScheme,
		policyv1.AddToScheme,
		policyv1beta1.AddToScheme,
		rbacv1.AddToScheme,
		rbacv1alpha1.AddToScheme,
		rbacv1beta1.AddToScheme,
		resourcev1.AddToScheme,
		resourcev1alpha3.AddToScheme,
		resourcev1beta1.AddToScheme,
		resourcev1beta2.AddToScheme,
		schedulingv1.AddToScheme,
		schedulingv1beta1.AddToScheme,
		storagev1.AddToScheme,
		storagev1alpha1.AddToScheme,
		storagev1beta1.AddToScheme,
		storagemigrationv1beta1.AddToScheme,
	} {
		if err := add(s); err != nil {
			return nil, err
		}
	}
	return s, nil
}
