// Package v1 is leash's CredentialsRequest API. It is wire-compatible with
// OpenShift's cloud-credential-operator (group cloudcredential.openshift.io,
// version v1), so manifests written for that operator apply unchanged.
//
// +kubebuilder:object:generate=true
// +groupName=cloudcredential.openshift.io
package v1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion is the API group and version of every type in this package.
	GroupVersion = schema.GroupVersion{Group: "cloudcredential.openshift.io", Version: "v1"}

	// SchemeBuilder registers the types of this package with a runtime.Scheme.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}

	// AddToScheme adds the types of this package to a runtime.Scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)
