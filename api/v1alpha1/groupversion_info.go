// Package v1alpha1 is leash's own API, group leash.dev: kinds that report
// what leash finds, beside the CredentialsRequest API of package v1. They
// live in a group of leash's, not in cloudcredential.openshift.io, so that a
// cluster where OpenShift's cloud-credential-operator owns that group never
// meets a kind it does not know under its name; v1alpha1 says the shape may
// still change.
//
// +kubebuilder:object:generate=true
// +groupName=leash.dev
package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion is the API group and version of every type in this package.
	GroupVersion = schema.GroupVersion{Group: "leash.dev", Version: "v1alpha1"}

	// SchemeBuilder registers the types of this package with a runtime.Scheme.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}

	// AddToScheme adds the types of this package to a runtime.Scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)
