package operator

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/inputerr"
)

func TestUserNameFitsIAMAndIsUniquePerRequest(t *testing.T) {
	long := strings.Repeat("n", 63)
	tests := []struct {
		name                  string
		cluster, ns, req, uid string
		wantPrefix            string
	}{
		{"short names are kept whole", "prod", "apps", "reader", "uid-1", "prod-apps-reader-"},
		{"the cluster name is cut to 20", strings.Repeat("c", 30), "a", "b", "uid-1", strings.Repeat("c", 20) + "-a-b-"},
		{"long names are cut to fit 64 with the hash", "prod", long, long, "uid-1", "prod-" + long[:44]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := userName(tt.cluster, tt.ns, tt.req, tt.uid)
			if len(n) > 64 || !strings.HasPrefix(n, tt.wantPrefix) {
				t.Errorf("userName = %q (%d characters), want prefix %q and at most 64", n, len(n), tt.wantPrefix)
			}
			if again := userName(tt.cluster, tt.ns, tt.req, tt.uid); again != n {
				t.Errorf("not deterministic: %q then %q", n, again)
			}
			if other := userName(tt.cluster, tt.ns, tt.req, tt.uid+"x"); other == n {
				t.Errorf("two requests with one name but different UIDs share user %q", n)
			}
		})
	}
}

func spec(t *testing.T, v any) *leashv1.CredentialsRequest {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return &leashv1.CredentialsRequest{Spec: leashv1.CredentialsRequestSpec{ProviderSpec: &runtime.RawExtension{Raw: raw}}}
}

func TestRequestedPolicyNamesTheEntry(t *testing.T) {
	tests := []struct {
		name    string
		entries []map[string]any
		field   string
	}{
		{"no entries", nil, "spec.providerSpec.statementEntries"},
		{"bad effect", []map[string]any{{"effect": "Allow", "action": []string{"s3:GetObject"}, "resource": "*"},
			{"effect": "Permit", "action": []string{"s3:GetObject"}, "resource": "*"}}, "spec.providerSpec.statementEntries[1].effect"},
		{"unknown operator", []map[string]any{{"effect": "Allow", "action": []string{"s3:GetObject"}, "resource": "*",
			"policyCondition": map[string]any{"StringEqualz": map[string]any{"aws:RequestedRegion": "eu-north-1"}}}},
			"spec.providerSpec.statementEntries[0].policyCondition.StringEqualz"},
		{"action without a service", []map[string]any{{"effect": "Allow", "action": []string{"GetObject"}, "resource": "*"}},
			"spec.providerSpec.statementEntries[0].action"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cr := spec(t, map[string]any{"apiVersion": "cloudcredential.openshift.io/v1", "kind": "AWSProviderSpec", "statementEntries": tt.entries})
			s, err := awsSpec(cr)
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = requestedPolicy(s)
			var in *inputerr.Error
			if !errors.As(err, &in) || !strings.HasPrefix(in.Field, tt.field) {
				t.Errorf("error %v, want one naming %s", err, tt.field)
			}
		})
	}
}

func TestAWSSpecSortsOutOtherClouds(t *testing.T) {
	if _, err := awsSpec(spec(t, map[string]any{"kind": "GCPProviderSpec"})); !errors.Is(err, errNotAWS) {
		t.Errorf("a GCP spec: %v, want errNotAWS", err)
	}
	if _, err := awsSpec(&leashv1.CredentialsRequest{}); err == nil || !strings.Contains(err.Error(), "spec.providerSpec") {
		t.Errorf("no spec: %v", err)
	}
	if _, err := awsSpec(spec(t, map[string]any{"kind": "AWSProviderSpec", "statementEntry": []any{}})); err == nil || !strings.Contains(err.Error(), "statementEntry") {
		t.Errorf("a misspelt field is not named: %v", err)
	}
}

func TestSecretKeyReadsEveryForm(t *testing.T) {
	tests := []struct {
		name    string
		data    map[string]string
		id      string
		problem string
	}{
		{"data keys", map[string]string{"aws_access_key_id": "AKIAIOSFODNN7EXAMPLE", "aws_secret_access_key": "s"}, "AKIAIOSFODNN7EXAMPLE", ""},
		{"credentials file", map[string]string{"credentials": "[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = s\n"}, "AKIAIOSFODNN7EXAMPLE", ""},
		{"half a pair", map[string]string{"aws_access_key_id": "AKIAIOSFODNN7EXAMPLE"}, "", "aws_secret_access_key is missing"},
		{"nothing", map[string]string{"other": "x"}, "", "has neither"},
		{"malformed file", map[string]string{"credentials": "aws_access_key_id = x\n"}, "", "malformed: line 1"},
		{"file without keys", map[string]string{"credentials": "[default]\nregion = eu-north-1\n"}, "", "no [default] profile with"},
		{"web identity", map[string]string{"credentials": "[default]\nrole_arn = arn:aws:iam::111122223333:role/r\nweb_identity_token_file = /t\n"}, "", "web-identity"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s"}, Data: map[string][]byte{}}
			for k, v := range tt.data {
				s.Data[k] = []byte(v)
			}
			key, problem := secretKey(s)
			if key.ID != tt.id || !strings.Contains(problem, tt.problem) || (tt.problem == "") != (problem == "") {
				t.Errorf("secretKey = %q, %q; want %q, %q", key.ID, problem, tt.id, tt.problem)
			}
			if strings.Contains(problem, "wJalr") || strings.Contains(problem, " s\n") {
				t.Error("the problem quotes the secret")
			}
		})
	}
}
