package cli

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
)

// oneRequest writes a folder holding the STS example's request, edited.
func oneRequest(t *testing.T, edit func(string) string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "examples", "ccm-sts", "credentialsrequest.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "request.yaml"), []byte(edit(string(raw))), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func unchanged(s string) string { return s }

// TestSTSCreateRolesBadInput pins each refusal of create-roles: a clear
// error naming the field or flag and the fix, and nothing made: no role
// or managed policy of leash's in IAM, no Secret manifest.
func TestSTSCreateRolesBadInput(t *testing.T) {
	ctx := context.Background()
	const foreignTrust = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"ec2.amazonaws.com"},"Action":"sts:AssumeRole"}]}`
	tests := []struct {
		name string
		// arrange prepares leash local and returns the folder and extra
		// flags.
		arrange func(t *testing.T, e *stsEnv) (string, []string)
		code    int
		want    []string // in stderr (exit 2) or stdout (exit 1)
		// roles are the roles under /leash/ afterwards: the ones the
		// test made, never one of leash's.
		roles []string
	}{
		{name: "a request without serviceAccountNames names the field and the fix", code: 2,
			arrange: func(t *testing.T, e *stsEnv) (string, []string) {
				e.createProvider(t, "sts.amazonaws.com")
				return oneRequest(t, func(s string) string {
					return strings.Replace(s, "  serviceAccountNames:\n  - cloud-controller-manager\n", "", 1)
				}), nil
			},
			want: []string{"kube-system/aws-cloud-controller-manager-sts: spec.serviceAccountNames: is empty", "serviceAccountNames: [cloud-controller-manager]", "nothing was made"}},
		{name: "one bad request in the folder refuses the whole folder", code: 2,
			arrange: func(t *testing.T, e *stsEnv) (string, []string) {
				e.createProvider(t, "sts.amazonaws.com")
				dir := oneRequest(t, unchanged)
				bad := strings.Replace(strings.Replace(mustRead(t, filepath.Join(dir, "request.yaml")), "name: aws-cloud-controller-manager-sts\n", "name: second\n", 1),
					"  serviceAccountNames:\n  - cloud-controller-manager\n", "  serviceAccountNames:\n  - kube-system:cloud-controller-manager\n", 1)
				writeTestFile(t, filepath.Join(dir, "second.yaml"), strings.Replace(bad, "cloud-controller-manager-sts-credentials", "second-credentials", 1))
				return dir, nil
			},
			want: []string{"kube-system/second: spec.serviceAccountNames[0]: \"kube-system:cloud-controller-manager\" is not a ServiceAccount name", "give the name alone"}},
		{name: "a request annotated for another mode is refused, not minted", code: 2,
			arrange: func(t *testing.T, e *stsEnv) (string, []string) {
				e.createProvider(t, "sts.amazonaws.com")
				return oneRequest(t, func(s string) string {
					return strings.Replace(s, "  namespace: kube-system\nspec:", "  namespace: kube-system\n  annotations: {leash.dev/mode: Mint}\nspec:", 1)
				}), nil
			},
			want: []string{"metadata.annotations[leash.dev/mode]: is Mint", "set it to STS"}},
		{name: "an issuer URL that is not https names the flag", code: 2,
			arrange: func(t *testing.T, e *stsEnv) (string, []string) {
				return oneRequest(t, unchanged), []string{"--oidc-issuer", "http://oidc.example.com/prod"}
			},
			want: []string{"--oidc-issuer", "the scheme must be https"}},
		{name: "no provider for the issuer says to make it", code: 2,
			arrange: func(t *testing.T, e *stsEnv) (string, []string) { return oneRequest(t, unchanged), nil },
			want:    []string{"has no IAM OIDC provider", "leash sts create-provider --oidc-issuer " + testIssuer}},
		{name: "a provider whose client IDs lack the audience is refused and left as it is", code: 2,
			arrange: func(t *testing.T, e *stsEnv) (string, []string) {
				e.createProvider(t, "other-audience")
				return oneRequest(t, unchanged), nil
			},
			want: []string{"--audience sts.amazonaws.com", "client IDs \"other-audience\"", "add-client-id-to-open-id-connect-provider"}},
		{name: "a role of the same name leash did not make is never adopted", code: 1,
			arrange: func(t *testing.T, e *stsEnv) (string, []string) {
				e.createProvider(t, "sts.amazonaws.com")
				dir := oneRequest(t, unchanged)
				// The name create-roles gives the request, learnt in
				// another endpoint, is taken here by someone else's role.
				other := newSTSEnv(t)
				other.createProvider(t, "sts.amazonaws.com")
				stdout, stderr, code := other.createRoles(t, dir)
				if code != 0 {
					t.Fatalf("create-roles elsewhere: exit %d\n%s%s", code, stdout, stderr)
				}
				name := other.leashRoles(t)[0]
				if _, err := e.admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: name.RoleName, Path: name.Path,
					AssumeRolePolicyDocument: aws.String(foreignTrust)}); err != nil {
					t.Fatal(err)
				}
				return dir, nil
			},
			want: []string{"RoleNameTaken", "exists but is not this request's", "delete or rename it, or change --cluster-name"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newSTSEnv(t)
			dir, extra := tt.arrange(t, e)
			before := roleNames(e.leashRoles(t))
			stdout, stderr, code := e.createRoles(t, dir, extra...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, tt.code, stdout, stderr)
			}
			msg := stderr
			if tt.code == 1 {
				msg = stdout
			}
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("output lacks %q:\n%s", w, msg)
				}
			}
			// Nothing half made: the roles are the ones there before,
			// with no policy of leash's on them, and no Secret.
			if after := roleNames(e.leashRoles(t)); !slices.Equal(after, before) {
				t.Errorf("roles under /leash/ were %v, now %v", before, after)
			}
			for _, r := range before {
				inline, err := e.admin.ListRolePolicies(ctx, &iam.ListRolePoliciesInput{RoleName: aws.String(r)})
				if err != nil {
					t.Fatal(err)
				}
				attached, err := e.admin.ListAttachedRolePolicies(ctx, &iam.ListAttachedRolePoliciesInput{RoleName: aws.String(r)})
				if err != nil {
					t.Fatal(err)
				}
				if len(inline.PolicyNames)+len(attached.AttachedPolicies) != 0 {
					t.Errorf("role %s was given policies: %v %v", r, inline.PolicyNames, attached.AttachedPolicies)
				}
			}
			if ps := e.localPolicies(t); len(ps) != 0 {
				t.Errorf("managed policies made: %v", ps)
			}
			if entries, err := os.ReadDir(e.out); err == nil && len(entries) > 0 {
				t.Errorf("Secret manifests written under %s: %v", e.out, entries)
			}
			// delete leaves a role it did not make alone.
			if len(before) > 0 {
				if out, stderr, code := e.delete(t, dir); code != 0 || strings.Contains(stderr, "deleted") {
					t.Fatalf("delete: exit %d, want 0 and no deletion said\n%s%s", code, out, stderr)
				}
				if after := roleNames(e.leashRoles(t)); !slices.Equal(after, before) {
					t.Errorf("delete removed a role leash did not make: %v, now %v", before, after)
				}
			}
		})
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
