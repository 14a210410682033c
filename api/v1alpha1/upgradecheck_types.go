package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// UpgradeCheckName is the name of the one CredentialsUpgradeCheck the
// operator writes.
const UpgradeCheckName = "cluster"

// Upgradeable is the condition type that answers whether the cluster may
// move to the next release: True when every next CredentialsRequest finds
// what it needs in the credentials the cluster holds now, False when one
// lacks a permission, Unknown when the check could not tell. It is the
// condition OpenShift's cloud-credential-operator sets on its
// ClusterOperator for the same question.
const Upgradeable = "Upgradeable"

// UpgradeState is one next request's answer.
// +kubebuilder:validation:Enum=ok;missing;new;ignored;failed
type UpgradeState string

// The states, as leash check upgrade --output json writes them.
const (
	// UpgradeOK: the current principal allows everything the next request
	// grants.
	UpgradeOK UpgradeState = "ok"
	// UpgradeMissing: it lacks some of it; the upgrade would break the
	// request.
	UpgradeMissing UpgradeState = "missing"
	// UpgradeNew: the cluster holds no request of that name; it is
	// provisioned at upgrade.
	UpgradeNew UpgradeState = "new"
	// UpgradeIgnored: the request is for another cloud.
	UpgradeIgnored UpgradeState = "ignored"
	// UpgradeFailed: the request could not be checked; the message says why
	// and what to do.
	UpgradeFailed UpgradeState = "failed"
)

// CredentialsUpgradeCheckStatus is the answer of the last check.
type CredentialsUpgradeCheckStatus struct {
	// Conditions holds Upgradeable.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// Source says where the next release's requests were read: the
	// operator's --next-requests folder and --next-requests-configmap.
	// +optional
	Source string `json:"source,omitempty"`

	// Requests is the answer for each next request, in the order read.
	// +optional
	Requests []UpgradeRequestStatus `json:"requests,omitempty"`
}

// UpgradeRequestStatus is one next request's answer.
type UpgradeRequestStatus struct {
	// Namespace and Name are the request's, as the next release writes
	// them; the current request of the same NAMESPACE/NAME is the one
	// checked.
	// +kubebuilder:validation:Required
	// +required
	Namespace string `json:"namespace"`
	// +kubebuilder:validation:Required
	// +required
	Name string `json:"name"`

	// Principal is the ARN of the IAM user or role the current request
	// holds, the one checked; empty when there is none.
	// +optional
	Principal string `json:"principal,omitempty"`

	// State is ok, missing, new, ignored or failed.
	// +kubebuilder:validation:Required
	// +required
	State UpgradeState `json:"state"`

	// Missing lists what the next request grants and the current
	// principal does not allow.
	// +optional
	Missing []MissingPermission `json:"missing,omitempty"`

	// Message says why a request is ignored, new or failed, or notes the
	// principal it was checked against (a Passthrough request's is the
	// operator's root credentials).
	// +optional
	Message string `json:"message,omitempty"`

	// ObservedAt is when this answer was first seen: it stays while the
	// answer does.
	// +kubebuilder:validation:Required
	// +required
	ObservedAt metav1.Time `json:"observedAt"`
}

// MissingPermission is one action, resource and condition a next request
// grants that its current principal does not allow, with leash's engine's
// reason.
type MissingPermission struct {
	// +kubebuilder:validation:Required
	// +required
	Action string `json:"action"`
	// +kubebuilder:validation:Required
	// +required
	Resource string `json:"resource"`
	// Condition is the request context asked with, as key=value pairs.
	// +optional
	Condition string `json:"condition,omitempty"`
	// +kubebuilder:validation:Required
	// +required
	Reason string `json:"reason"`
}

// CredentialsUpgradeCheck says whether the next release's
// CredentialsRequests find the permissions they need in the credentials
// the cluster holds now. The operator writes one, named cluster, when it is
// given the next release's requests (--next-requests,
// --next-requests-configmap), and keeps it in step as requests, their
// principals and the next release's manifests change.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster
// +kubebuilder:printcolumn:name="Upgradeable",type=string,JSONPath=`.status.conditions[?(@.type=="Upgradeable")].status`,description="Whether every next request finds what it needs"
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Upgradeable")].reason`,description="Why"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type CredentialsUpgradeCheck struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Status CredentialsUpgradeCheckStatus `json:"status,omitempty"`
}

// CredentialsUpgradeCheckList is a list of CredentialsUpgradeChecks.
// +kubebuilder:object:root=true
type CredentialsUpgradeCheckList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []CredentialsUpgradeCheck `json:"items"`
}

func init() {
	SchemeBuilder.Register(&CredentialsUpgradeCheck{}, &CredentialsUpgradeCheckList{})
}
