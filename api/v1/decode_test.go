package v1_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"

	leashv1 "leash.dev/leash/api/v1"
)

// strictDecoder decodes YAML or JSON into the registered types and fails on
// any field the types do not know, so a fixture that decodes proves the
// types cover the whole OpenShift format.
func strictDecoder(t *testing.T) (*runtime.Scheme, runtime.Decoder) {
	t.Helper()
	s := runtime.NewScheme()
	if err := leashv1.AddToScheme(s); err != nil {
		t.Fatalf("AddToScheme: %v", err)
	}
	return s, json.NewSerializerWithOptions(json.DefaultMetaFactory, s, s,
		json.SerializerOptions{Yaml: true, Strict: true})
}

func decodeFixture(t *testing.T, dec runtime.Decoder, name string) *leashv1.CredentialsRequest {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	obj, gvk, err := dec.Decode(data, nil, nil)
	if err != nil {
		t.Fatalf("%s: decoding: %v", name, err)
	}
	if gvk.GroupVersion() != leashv1.GroupVersion || gvk.Kind != "CredentialsRequest" {
		t.Fatalf("%s: decoded as %v; want cloudcredential.openshift.io/v1 CredentialsRequest", name, gvk)
	}
	cr, ok := obj.(*leashv1.CredentialsRequest)
	if !ok {
		t.Fatalf("%s: decoded into %T; want *v1.CredentialsRequest", name, obj)
	}
	return cr
}

func decodeAWS(t *testing.T, dec runtime.Decoder, cr *leashv1.CredentialsRequest) *leashv1.AWSProviderSpec {
	t.Helper()
	if cr.Spec.ProviderSpec == nil {
		t.Fatalf("%s: spec.providerSpec is empty", cr.Name)
	}
	obj, gvk, err := dec.Decode(cr.Spec.ProviderSpec.Raw, nil, nil)
	if err != nil {
		t.Fatalf("%s: decoding providerSpec: %v", cr.Name, err)
	}
	spec, ok := obj.(*leashv1.AWSProviderSpec)
	if !ok || gvk.Kind != "AWSProviderSpec" {
		t.Fatalf("%s: providerSpec decoded into %T (%v); want *v1.AWSProviderSpec", cr.Name, obj, gvk)
	}
	return spec
}

func TestDecodeCCMRequest(t *testing.T) {
	_, dec := strictDecoder(t)
	cr := decodeFixture(t, dec, "aws-ccm.yaml")
	if cr.Namespace != "openshift-cloud-credential-operator" || cr.Name != "openshift-cloud-controller-manager" {
		t.Errorf("metadata: %s/%s", cr.Namespace, cr.Name)
	}
	wantRef := corev1.ObjectReference{Name: "cloud-controller-manager-credentials", Namespace: "openshift-cloud-controller-manager"}
	if cr.Spec.SecretRef != wantRef {
		t.Errorf("secretRef = %+v; want %+v", cr.Spec.SecretRef, wantRef)
	}
	aws := decodeAWS(t, dec, cr)
	if aws.STSIAMRoleARN != "" {
		t.Errorf("stsIAMRoleARN = %q; want empty", aws.STSIAMRoleARN)
	}
	if len(aws.StatementEntries) != 2 {
		t.Fatalf("got %d statements; want 2", len(aws.StatementEntries))
	}
	first := aws.StatementEntries[0]
	if first.Effect != "Allow" || first.Resource != "*" || len(first.Action) != 46 ||
		first.Action[0] != "ec2:DescribeInstances" || first.Action[45] != "elasticloadbalancing:SetSecurityGroups" {
		t.Errorf("first statement: effect %q resource %q, %d actions (first %q); want Allow on * with 46 actions",
			first.Effect, first.Resource, len(first.Action), first.Action[0])
	}
	if first.PolicyCondition != nil {
		t.Errorf("first statement has policyCondition %v; want none", first.PolicyCondition)
	}
	want := leashv1.IAMPolicyCondition{
		"Bool":         {"kms:GrantIsForAWSResource": true},
		"StringEquals": {"aws:RequestedRegion": []any{"us-east-1", "us-west-2"}},
	}
	second := aws.StatementEntries[1]
	if !reflect.DeepEqual(second.PolicyCondition, want) {
		t.Errorf("policyCondition = %#v; want %#v", second.PolicyCondition, want)
	}

	// The copy shares nothing with the original.
	cp := aws.DeepCopy()
	cp.StatementEntries[1].PolicyCondition["StringEquals"]["aws:RequestedRegion"].([]any)[0] = "changed"
	cp.StatementEntries[1].PolicyCondition["Bool"]["new"] = "x"
	if !reflect.DeepEqual(aws.StatementEntries[1].PolicyCondition, want) {
		t.Errorf("changing a DeepCopy changed the original: %#v", aws.StatementEntries[1].PolicyCondition)
	}
}

func TestDecodeSTSRequest(t *testing.T) {
	_, dec := strictDecoder(t)
	cr := decodeFixture(t, dec, "aws-sts.yaml")
	if got, want := cr.Spec.ServiceAccountNames, []string{"logcollector", "cluster-logging-operator"}; !reflect.DeepEqual(got, want) {
		t.Errorf("serviceAccountNames = %q; want %q", got, want)
	}
	if cr.Spec.CloudTokenPath != leashv1.DefaultCloudTokenPath {
		t.Errorf("cloudTokenPath = %q; want %q", cr.Spec.CloudTokenPath, leashv1.DefaultCloudTokenPath)
	}
	aws := decodeAWS(t, dec, cr)
	if want := "arn:aws:iam::123456789012:role/mycluster-openshift-logging-cluster-logging"; aws.STSIAMRoleARN != want {
		t.Errorf("stsIAMRoleARN = %q; want %q", aws.STSIAMRoleARN, want)
	}
	if len(aws.StatementEntries) != 1 || len(aws.StatementEntries[0].Action) != 6 ||
		aws.StatementEntries[0].Resource != "arn:aws:logs:*:*:*" {
		t.Errorf("statements = %+v; want one with 6 logs actions on arn:aws:logs:*:*:*", aws.StatementEntries)
	}
}

func TestDecodeOtherCloudRequest(t *testing.T) {
	s, dec := strictDecoder(t)
	cr := decodeFixture(t, dec, "gcp-other-cloud.yaml")
	// The provider spec of another cloud is kept as raw JSON; its kind is
	// not one leash knows.
	_, gvk, err := dec.Decode(cr.Spec.ProviderSpec.Raw, nil, nil)
	if !runtime.IsNotRegisteredError(err) || gvk == nil || gvk.Kind != "GCPProviderSpec" {
		t.Errorf("decoding a GCPProviderSpec: kind %v, error %v; want a not-registered error for GCPProviderSpec", gvk, err)
	}
	if s.Recognizes(leashv1.GroupVersion.WithKind("GCPProviderSpec")) {
		t.Error("the scheme recognizes GCPProviderSpec")
	}
}

func TestStrictDecodingRejectsUnknownFields(t *testing.T) {
	_, dec := strictDecoder(t)
	data := []byte(`apiVersion: cloudcredential.openshift.io/v1
kind: AWSProviderSpec
statementEntries:
- effect: Allow
  actions: [s3:GetObject]
  resource: "*"
`)
	if _, _, err := dec.Decode(data, nil, nil); err == nil {
		t.Error("decoding a statement with the misspelt field \"actions\" succeeded; want a strict decoding error")
	}
}
