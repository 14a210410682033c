package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// AWSProviderSpec is spec.providerSpec of a CredentialsRequest for AWS
// (apiVersion cloudcredential.openshift.io/v1, kind AWSProviderSpec).
//
// +kubebuilder:object:root=true
type AWSProviderSpec struct {
	metav1.TypeMeta `json:",inline"`

	// StatementEntries are the IAM policy statements the credentials need.
	// With minting they become the inline policy of the new IAM user.
	StatementEntries []StatementEntry `json:"statementEntries"`

	// STSIAMRoleARN is the ARN of an IAM role created beforehand for this
	// request (for example by ccoctl). When set, the Secret holds a web
	// identity configuration for that role instead of an access key.
	// +optional
	STSIAMRoleARN string `json:"stsIAMRoleARN,omitempty"`
}

// StatementEntry is one statement of an IAM policy.
type StatementEntry struct {
	// Effect is Allow or Deny.
	Effect string `json:"effect"`

	// Action lists the AWS actions the statement covers, such as
	// ec2:DescribeInstances or s3:*.
	Action []string `json:"action"`

	// Resource is the ARN, possibly with wildcards, the statement applies
	// to; "*" means every resource.
	Resource string `json:"resource"`

	// PolicyCondition restricts when the statement applies, in IAM's form:
	// operator (such as StringEquals) to condition key to value(s).
	// +optional
	PolicyCondition IAMPolicyCondition `json:"policyCondition,omitempty"`
}

// IAMPolicyCondition maps a condition operator, such as StringEquals or
// ForAnyValue:StringLike, to the keys it tests.
//
// +kubebuilder:object:generate=false
type IAMPolicyCondition map[string]IAMPolicyConditionKeyValue

// IAMPolicyConditionKeyValue maps a condition key, such as aws:SourceVpc, to
// its value: a string, a boolean, a number, or a list of those, as decoded
// from JSON.
//
// +kubebuilder:object:generate=false
type IAMPolicyConditionKeyValue map[string]any

// AWSProviderStatus is status.providerStatus of a CredentialsRequest for AWS
// (kind AWSProviderStatus).
//
// +kubebuilder:object:root=true
type AWSProviderStatus struct {
	metav1.TypeMeta `json:",inline"`

	// User is the name of the IAM user created for the request.
	User string `json:"user"`

	// Policy is the name of the inline policy attached to that user.
	Policy string `json:"policy"`
}

func init() {
	SchemeBuilder.Register(&AWSProviderSpec{}, &AWSProviderStatus{})
}
