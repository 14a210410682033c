package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/feature/ec2/imds"
	"github.com/spf13/pflag"

	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/internal/inputerr"
)

// iamAccess is where IAM is and whose credentials call it, as the commands
// that read or change a live principal (leash check --user/--role, leash
// revoke) take them: one flag set, one order of sources.
type iamAccess struct {
	endpoint, credentialsFile, profile string
	// getenv reads AWS_ACCESS_KEY_ID and the other variables.
	getenv func(string) string
}

// addFlags adds --endpoint, --credentials-file and --profile; what names
// what they are used for, such as "read --user or --role".
func (a *iamAccess) addFlags(f *pflag.FlagSet, what string) {
	f.StringVar(&a.endpoint, "endpoint", "",
		"`URL` of leash local to "+what+" in, instead of AWS (e.g. --endpoint http://127.0.0.1:4566)")
	a.addCredentialFlags(f)
}

// addCredentialFlags adds --credentials-file and --profile, for a command
// whose --endpoint means more than IAM's address (leash sts create-roles).
func (a *iamAccess) addCredentialFlags(f *pflag.FlagSet) {
	f.StringVar(&a.credentialsFile, "credentials-file", "",
		"shared-credentials `FILE` whose [default] key (or --profile's) calls IAM, instead of AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (e.g. --credentials-file leash-data/admin-credentials)")
	f.StringVar(&a.profile, "profile", "",
		"named `PROFILE` of the shared credentials and config files (~/.aws/credentials, ~/.aws/config, or --credentials-file) whose credentials call IAM; default $AWS_PROFILE when no key is in the environment (e.g. --profile incident)")
}

// given says whether any of the flags was set.
func (a iamAccess) given() bool {
	return a.endpoint != "" || a.credentialsFile != "" || a.profile != ""
}

// client is an IAM client for the flags' endpoint and credentials.
func (a iamAccess) client(ctx context.Context, maxAttempts int) (*iamclient.Client, error) {
	creds, err := a.credentials(ctx)
	if err != nil {
		return nil, err
	}
	region := a.getenv("AWS_REGION")
	if region == "" {
		region = a.getenv("AWS_DEFAULT_REGION")
	}
	return iamclient.New(iamclient.Config{Endpoint: a.endpoint, Region: region, Credentials: creds, MaxAttempts: maxAttempts}), nil
}

// credentials picks the key, in this order: --profile; --credentials-file's
// [default] profile; AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (with
// AWS_SESSION_TOKEN); the profile $AWS_PROFILE names. Instance metadata is
// never asked: a command run by a person acts as that person or not at all.
func (a iamAccess) credentials(ctx context.Context) (aws.CredentialsProvider, error) {
	if a.profile != "" {
		return a.profileCredentials(ctx, a.profile, "--profile")
	}
	if a.credentialsFile != "" {
		key, err := iamclient.KeyFromFile(a.credentialsFile)
		var pathErr *fs.PathError
		if errors.As(err, &pathErr) {
			err = pathErr.Err
		}
		if err != nil {
			return nil, &inputerr.Error{Source: "--credentials-file " + a.credentialsFile, Msg: fmt.Sprintf("%v; or name another profile with --profile", err)}
		}
		return key.Provider(), nil
	}
	if key, ok := iamclient.KeyFromEnv(a.getenv); ok {
		return key.Provider(), nil
	}
	if p := a.getenv("AWS_PROFILE"); p != "" {
		return a.profileCredentials(ctx, p, "AWS_PROFILE")
	}
	return nil, &inputerr.Error{Msg: "no credentials to call IAM: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary keys), or give --profile NAME, or --credentials-file FILE (e.g. leash local's leash-data/admin-credentials)"}
}

// profileCredentials loads a named profile with the SDK, so every kind of
// profile the AWS CLI reads (a key, role_arn with source_profile, SSO, a
// credential process) works, and retrieves it once to fail here, with the
// profile's name, rather than on the first call.
func (a iamAccess) profileCredentials(ctx context.Context, profile, from string) (aws.CredentialsProvider, error) {
	load := []func(*config.LoadOptions) error{
		config.WithSharedConfigProfile(profile),
		config.WithEC2IMDSClientEnableState(imds.ClientDisabled),
		config.WithRegion("us-east-1"), // IAM is global; a role_arn profile's STS call needs one
	}
	if a.credentialsFile != "" {
		if _, err := os.Stat(a.credentialsFile); err != nil {
			return nil, &inputerr.Error{Source: "--credentials-file " + a.credentialsFile, Msg: err.Error()}
		}
		load = append(load, config.WithSharedCredentialsFiles([]string{a.credentialsFile}))
	}
	if a.endpoint != "" {
		load = append(load, config.WithBaseEndpoint(a.endpoint))
	}
	cfg, err := config.LoadDefaultConfig(ctx, load...)
	if err != nil {
		return nil, &inputerr.Error{Source: from + " " + profile, Msg: fmt.Sprintf("%v; check the profile in the shared config and credentials files", err)}
	}
	if _, err := cfg.Credentials.Retrieve(ctx); err != nil {
		return nil, &inputerr.Error{Source: from + " " + profile, Msg: fmt.Sprintf("no usable credentials: %v", err)}
	}
	return cfg.Credentials, nil
}
