package cli

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"

	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/internal/inputerr"
)

// TestIAMAccessCredentials pins the order check and revoke take credentials
// in, named profiles included, against leash local.
func TestIAMAccessCredentials(t *testing.T) {
	in := startIncident(t)
	ctx := context.Background()
	opsKey := in.user(t, "ops", "sts:AssumeRole", "*")
	if _, err := in.admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("responder"),
		AssumeRolePolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::` + incidentAccount + `:user/ops"},"Action":"sts:AssumeRole"}]}`)}); err != nil {
		t.Fatal(err)
	}
	opsFile := credentialsFile(t, "incident", opsKey)
	config := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(config, []byte("[profile responder]\nrole_arn = arn:aws:iam::"+incidentAccount+":role/responder\nsource_profile = incident\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	admin, err := iamclient.KeyFromFile(in.adminFile)
	if err != nil {
		t.Fatal(err)
	}
	adminEnv := map[string]string{"AWS_ACCESS_KEY_ID": admin.ID, "AWS_SECRET_ACCESS_KEY": admin.Secret.Reveal()}
	// The SDK reads the files' locations from the process environment.
	t.Setenv("AWS_CONFIG_FILE", config)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", opsFile)
	t.Setenv("HOME", t.TempDir())

	ops := "arn:aws:iam::" + incidentAccount + ":user/ops"
	for _, tt := range []struct {
		name   string
		access iamAccess
		env    map[string]string
		want   string // the caller's ARN, or a bad-input message
	}{
		{"--profile reads a named key of --credentials-file", iamAccess{credentialsFile: opsFile, profile: "incident"}, nil, ops},
		{"--profile wins over keys in the environment", iamAccess{profile: "incident"}, adminEnv, ops},
		{"--profile with role_arn and source_profile assumes the role at the endpoint", iamAccess{profile: "responder"}, nil,
			"arn:aws:sts::" + incidentAccount + ":assumed-role/responder/"},
		{"--credentials-file alone reads its [default]", iamAccess{credentialsFile: in.adminFile}, nil, "arn:aws:iam::" + incidentAccount + ":user/admin"},
		{"keys in the environment win over AWS_PROFILE", iamAccess{}, merge(adminEnv, map[string]string{"AWS_PROFILE": "incident"}), "arn:aws:iam::" + incidentAccount + ":user/admin"},
		{"AWS_PROFILE names the profile when no key is in the environment", iamAccess{}, map[string]string{"AWS_PROFILE": "incident"}, ops},
		{"a profile the files do not have is bad input naming it", iamAccess{profile: "nope"}, nil, "--profile nope: "},
		{"no credentials at all is bad input saying where to put them", iamAccess{}, nil, "no credentials to call IAM"},
		{"--credentials-file without [default] is bad input pointing at --profile", iamAccess{credentialsFile: opsFile}, nil, "or name another profile with --profile"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := tt.access
			a.endpoint = in.l.URL
			a.getenv = func(k string) string { return tt.env[k] }
			c, err := a.client(ctx, 1)
			if !strings.HasPrefix(tt.want, "arn:") {
				if !errors.As(err, new(*inputerr.Error)) || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("err = %v, want bad input %q", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			id, err := c.CallerIdentity(ctx)
			if err != nil || !strings.HasPrefix(id.ARN, tt.want) {
				t.Errorf("caller = %s, %v; want %s", id.ARN, err, tt.want)
			}
		})
	}

	// leash check --user takes the profile as revoke does: ops may not
	// read users, and IAM says so about ops.
	out, stderr, code := run(t, "check", "--endpoint", in.l.URL, "--profile", "incident", "--credentials-file", opsFile, "--user", "alice")
	if code != 2 || !strings.Contains(stderr, "User: "+ops+" is not authorized to perform: iam:GetUser") {
		t.Errorf("check --profile: exit %d\n%s%s", code, out, stderr)
	}
}

func merge(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}
