package v1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

const (
	// FinalizerDeprovision is set on a CredentialsRequest while cloud
	// resources minted for it exist; it is removed once they are deleted.
	FinalizerDeprovision = "cloudcredential.openshift.io/deprovision"

	// AnnotationCredentialsRequest is set on every Secret written for a
	// CredentialsRequest; its value is "<namespace>/<name>" of the request.
	AnnotationCredentialsRequest = "cloudcredential.openshift.io/credentials-request"

	// LabelCredentialsRequest is set to "true" on every Secret written for a
	// CredentialsRequest, so such Secrets can be selected by label.
	LabelCredentialsRequest = "cloudcredential.openshift.io/credentials-request"

	// DefaultCloudTokenPath is where a pod finds its projected service
	// account token when spec.cloudTokenPath is empty.
	DefaultCloudTokenPath = "/var/run/secrets/openshift/serviceaccount/token"
)

// CredentialsRequestSpec is what the user asks for: which Secret to write and
// which cloud permissions the credentials in it must carry.
type CredentialsRequestSpec struct {
	// SecretRef names the Secret (namespace and name) that receives the
	// credentials. The namespace may differ from the request's own; the
	// request waits, with condition MissingTargetNamespace, until it exists.
	// +kubebuilder:validation:Required
	// +required
	SecretRef corev1.ObjectReference `json:"secretRef"`

	// ProviderSpec holds the cloud-specific part of the request. For AWS it
	// is an AWSProviderSpec (apiVersion cloudcredential.openshift.io/v1, kind
	// AWSProviderSpec) listing the IAM policy statements the credentials need
	// and, for STS, the role to assume. Requests for other clouds are kept
	// and marked with condition Ignored.
	// +kubebuilder:pruning:PreserveUnknownFields
	// +optional
	ProviderSpec *runtime.RawExtension `json:"providerSpec,omitempty"`

	// ServiceAccountNames lists the Kubernetes ServiceAccounts (in the
	// Secret's namespace) whose pods use these credentials. With STS they
	// are the subjects allowed to assume the role
	// (system:serviceaccount:<namespace>:<name>).
	// +optional
	ServiceAccountNames []string `json:"serviceAccountNames,omitempty"`

	// CloudTokenPath is the file in the pod where the projected service
	// account token is mounted, written into the STS credentials file as
	// web_identity_token_file. Empty means
	// /var/run/secrets/openshift/serviceaccount/token.
	// +optional
	CloudTokenPath string `json:"cloudTokenPath,omitempty"`
}

// CredentialsMode says how the credentials in the Secret were obtained.
type CredentialsMode string

const (
	// ModeMint means a dedicated cloud user with exactly the requested
	// permissions was created for this request.
	ModeMint CredentialsMode = "Mint"
	// ModePassthrough means the administrator's credentials were copied
	// after checking they carry the requested permissions.
	ModePassthrough CredentialsMode = "Passthrough"
	// ModeManual means the administrator provides the Secret; it is not
	// written for the request.
	ModeManual CredentialsMode = "Manual"
	// ModeSTS means the Secret names a role that pods assume with their
	// service account token; no long-lived key is stored. It is Manual mode
	// with spec.providerSpec.stsIAMRoleARN set, and status.mode shows it as
	// Manual, the documented mode, with the role as status.principal.
	ModeSTS CredentialsMode = "STS"
	// ModeBroker means leash makes a role that only its credential broker
	// may assume, and pods get short-lived sessions of it from the broker
	// over the AWS container credentials protocol: no Secret is written and
	// no OIDC issuer needs to be reachable from AWS.
	ModeBroker CredentialsMode = "Broker"
	// ModeIgnored is the status.mode of a request for another cloud, which
	// leash leaves to that cloud's credentials operator.
	ModeIgnored CredentialsMode = "Ignored"
)

// CredentialsRequestStatus is what was done for the request.
type CredentialsRequestStatus struct {
	// Provisioned is true once the Secret has been written at least once.
	// +kubebuilder:validation:Required
	// +required
	Provisioned bool `json:"provisioned"`

	// LastSyncTimestamp is when the credentials were last reconciled.
	// +optional
	LastSyncTimestamp *metav1.Time `json:"lastSyncTimestamp,omitempty"`

	// LastSyncGeneration is the metadata.generation of the request that was
	// last reconciled; when it lags metadata.generation a change is pending.
	// +kubebuilder:validation:Required
	// +required
	LastSyncGeneration int64 `json:"lastSyncGeneration"`

	// LastSyncCloudCredsSecretResourceVersion is the resourceVersion of the
	// administrator's cloud credentials Secret at the last reconcile, used to
	// notice that those credentials changed.
	// +optional
	LastSyncCloudCredsSecretResourceVersion string `json:"lastSyncCloudCredsSecretResourceVersion,omitempty"`

	// LastSyncInfrastructureResourceVersion is the resourceVersion of the
	// cluster Infrastructure object at the last reconcile, used to notice
	// changed user tags.
	// +optional
	LastSyncInfrastructureResourceVersion string `json:"lastSyncInfrastructureResourceVersion,omitempty"`

	// ProviderStatus holds the cloud-specific result. For AWS it is an
	// AWSProviderStatus naming the IAM user and its inline policy.
	// +kubebuilder:pruning:PreserveUnknownFields
	// +optional
	ProviderStatus *runtime.RawExtension `json:"providerStatus,omitempty"`

	// Conditions report problems (InsufficientCloudCreds,
	// MissingTargetNamespace, CredentialsProvisionFailure,
	// CredentialsDeprovisionFailure, StaleCredentials), Ignored for requests
	// meant for another cloud, and the Ready summary.
	// +optional
	Conditions []CredentialsRequestCondition `json:"conditions,omitempty"`

	// Mode is how the credentials were obtained: Mint, Passthrough or
	// Manual (also with stsIAMRoleARN), or Ignored for a request for another
	// cloud. Leash extension; not set by OpenShift's operator.
	// +optional
	Mode CredentialsMode `json:"mode,omitempty"`

	// Principal is the cloud identity the credentials act as, such as the
	// ARN of the minted IAM user or of the STS role. Leash extension; not set
	// by OpenShift's operator.
	// +optional
	Principal string `json:"principal,omitempty"`

	// RevokedAt is the leash.dev/revoke time last honoured: every key of the
	// minted user issued before it was retired, or, for a role, sessions
	// issued before it are denied. Leash extension.
	// +optional
	RevokedAt *metav1.Time `json:"revokedAt,omitempty"`

	// Revocation says what honouring RevokedAt did: the key IDs retired and
	// published, or the deny put on the role. It never holds a secret.
	// Leash extension.
	// +optional
	Revocation string `json:"revocation,omitempty"`

	// RoleTrust is the trust policy of the STS role the request names
	// (spec.providerSpec.stsIAMRoleARN), as IAM held it at the last sync:
	// admission refuses a pod whose ServiceAccount's token it does not
	// admit, as STS would. Empty when leash could not read it, or made the
	// role (its trust is spec.serviceAccountNames). Leash extension.
	// +optional
	RoleTrust string `json:"roleTrust,omitempty"`

	// Usage is what the principal used of what the request allows, read
	// from the trail the operator is given (--usage-data, --usage-trail-dir)
	// at the last sync. Leash extension; the UnusedPermissions condition
	// sums it up.
	// +optional
	Usage *UsageStatus `json:"usage,omitempty"`
}

// UsageStatus is what a request's principal used of what the request
// allows over a window of its trail.
type UsageStatus struct {
	// Since is the start of the window read: calls before it do not count.
	// +kubebuilder:validation:Required
	// +required
	Since metav1.Time `json:"since"`

	// LastUsed is the last call that used an action the request allows.
	// +optional
	LastUsed *metav1.Time `json:"lastUsed,omitempty"`

	// Used are the actions the request allows that were used, as AWS's
	// catalog spells them.
	// +optional
	Used []string `json:"used,omitempty"`

	// Unused are the actions of the request's Allow statements, as
	// written, that nothing used in the window.
	// +optional
	Unused []string `json:"unused,omitempty"`
}

// CredentialsRequest asks for cloud credentials with a given set of
// permissions, to be written into a Secret for a workload.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced
// +kubebuilder:printcolumn:name="Mode",type=string,JSONPath=`.status.mode`,description="How the credentials were obtained"
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`,description="Whether the Secret holds working credentials"
// +kubebuilder:printcolumn:name="Principal",type=string,JSONPath=`.status.principal`,description="The cloud identity the credentials act as"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type CredentialsRequest struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the requested Secret and permissions.
	// +kubebuilder:validation:Required
	// +required
	Spec CredentialsRequestSpec `json:"spec"`

	// Status is what was done for the request.
	// +optional
	Status CredentialsRequestStatus `json:"status,omitempty"`
}

// CredentialsRequestList is a list of CredentialsRequests.
//
// +kubebuilder:object:root=true
type CredentialsRequestList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []CredentialsRequest `json:"items"`
}

// CredentialsRequestCondition is one observation about a CredentialsRequest.
type CredentialsRequestCondition struct {
	// Type is what the condition is about, such as Ready or
	// CredentialsProvisionFailure.
	// +kubebuilder:validation:Required
	// +required
	Type CredentialsRequestConditionType `json:"type"`

	// Status is True, False or Unknown.
	// +kubebuilder:validation:Required
	// +required
	Status corev1.ConditionStatus `json:"status"`

	// LastProbeTime is when the condition was last checked.
	// +optional
	LastProbeTime metav1.Time `json:"lastProbeTime,omitempty"`

	// LastTransitionTime is when Status last changed.
	// +optional
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty"`

	// Reason is a one-word CamelCase cause of the last transition.
	// +optional
	Reason string `json:"reason,omitempty"`

	// Message explains the last transition for a human, and says what to fix.
	// +optional
	Message string `json:"message,omitempty"`
}

// CredentialsRequestConditionType is the type of a CredentialsRequestCondition.
type CredentialsRequestConditionType string

const (
	// InsufficientCloudCredentials is True when the administrator's cloud
	// credentials can neither mint new credentials nor be passed through,
	// because they lack permissions the request needs.
	InsufficientCloudCredentials CredentialsRequestConditionType = "InsufficientCloudCreds"
	// MissingTargetNamespace is True when the namespace of spec.secretRef
	// does not exist.
	MissingTargetNamespace CredentialsRequestConditionType = "MissingTargetNamespace"
	// CredentialsProvisionFailure is True when writing the credentials
	// failed; the message carries the error.
	CredentialsProvisionFailure CredentialsRequestConditionType = "CredentialsProvisionFailure"
	// CredentialsDeprovisionFailure is True when deleting cloud resources
	// made for the request failed; the message carries the error.
	CredentialsDeprovisionFailure CredentialsRequestConditionType = "CredentialsDeprovisionFailure"
	// StaleCredentials is True when the request is no longer needed and its
	// credentials are waiting to be cleaned up.
	StaleCredentials CredentialsRequestConditionType = "StaleCredentials"
	// Ignored is True when spec.providerSpec is for another cloud than the
	// one leash manages; such requests are left alone.
	Ignored CredentialsRequestConditionType = "Ignored"
	// Ready summarises the others: True when the Secret holds credentials
	// with the requested permissions and no failure condition is True.
	// Leash extension.
	Ready CredentialsRequestConditionType = "Ready"
	// PolicyWarnings is True when spec.providerSpec.statementEntries hold
	// something AWS's catalog says does nothing (a condition key none of a
	// statement's actions carries) but that does not stop the request from
	// being provisioned. Leash extension.
	PolicyWarnings CredentialsRequestConditionType = "PolicyWarnings"
	// UnusedPermissions is True when the principal used none of some
	// actions the request allows in the window of the trail the operator
	// reads (status.usage lists them), False when it used every one, and
	// Unknown when the trail could not be read. It never affects Ready.
	// Leash extension.
	UnusedPermissions CredentialsRequestConditionType = "UnusedPermissions"
)

// FailureConditionTypes are the condition types that, when True, mean the
// request is not healthy.
var FailureConditionTypes = []CredentialsRequestConditionType{
	InsufficientCloudCredentials,
	MissingTargetNamespace,
	CredentialsProvisionFailure,
	CredentialsDeprovisionFailure,
}

func init() {
	SchemeBuilder.Register(&CredentialsRequest{}, &CredentialsRequestList{})
}
