package awscreds

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/feature/ec2/imds"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"leash.dev/leash/credfile"
)

// FileEnv is the environment variable naming the mounted credentials file.
const FileEnv = "AWS_SHARED_CREDENTIALS_FILE"

// Kind is where a controller's credentials come from.
type Kind int

const (
	// StaticFile is a key pair written in the credentials file.
	StaticFile Kind = iota + 1
	// WebIdentity is a role assumed with a service-account token, as the
	// credentials file's role_arn and web_identity_token_file name.
	WebIdentity
)

func (k Kind) String() string {
	switch k {
	case StaticFile:
		return "static key in file"
	case WebIdentity:
		return "web identity"
	}
	return "unknown"
}

// Source describes the credentials Load accepted. It holds no secret and
// may be logged.
type Source struct {
	Kind    Kind
	File    string // the credentials file
	Profile string // the profile in it
	RoleARN string // the role assumed, for WebIdentity
}

func (s Source) String() string {
	text := fmt.Sprintf("%s (%s, profile %s)", s.Kind, s.File, s.Profile)
	if s.RoleARN != "" {
		text += " as " + s.RoleARN
	}
	return text
}

type options struct {
	file, profile string
	endpoint      string
	load          []func(*config.LoadOptions) error
}

// Option changes how Load finds and uses the credentials file.
type Option func(*options)

// WithCredentialsFile reads path instead of $AWS_SHARED_CREDENTIALS_FILE.
func WithCredentialsFile(path string) Option { return func(o *options) { o.file = path } }

// WithProfile reads the named profile instead of $AWS_PROFILE or default.
func WithProfile(name string) Option { return func(o *options) { o.profile = name } }

// WithEndpoint sends every request, the web-identity exchange with STS
// included, to url: for leash local and tests.
func WithEndpoint(url string) Option { return func(o *options) { o.endpoint = url } }

// WithLoadOptions passes more options to config.LoadDefaultConfig, such as
// config.WithRegion. The credentials files, the profile and the disabled
// instance metadata client are applied after them and cannot be changed.
func WithLoadOptions(fns ...func(*config.LoadOptions) error) Option {
	return func(o *options) { o.load = append(o.load, fns...) }
}

// envKeys are the variables the SDK reads a key pair from; any of them set
// would take the place of the mounted file for other readers of the
// environment, so Load refuses to start.
var envKeys = []string{"AWS_ACCESS_KEY_ID", "AWS_ACCESS_KEY", "AWS_SECRET_ACCESS_KEY", "AWS_SECRET_KEY"}

// Load reads the AWS configuration from the mounted credentials file only,
// with instance metadata (IMDS) disabled, retrieves the credentials once
// and checks they came from that file: a key pair, or a role assumed with
// a web-identity token. Anything else is an error, so a controller never
// runs as the node's instance role. Errors name the file and the problem,
// never a secret.
func Load(ctx context.Context, opts ...Option) (aws.Config, Source, error) {
	o := options{file: os.Getenv(FileEnv), profile: os.Getenv("AWS_PROFILE")}
	for _, opt := range opts {
		opt(&o)
	}
	if o.profile == "" {
		o.profile = "default"
	}
	for _, name := range envKeys {
		if os.Getenv(name) != "" {
			return aws.Config{}, Source{}, fmt.Errorf("awscreds: %s is set; unset it so the credentials come from the mounted file only", name)
		}
	}
	src, err := check(o.file, o.profile)
	if err != nil {
		return aws.Config{}, Source{}, err
	}
	cfg, err := resolve(ctx, o, src)
	if err != nil {
		return aws.Config{}, Source{}, err
	}
	return cfg, src, nil
}

// check reads the credentials file and returns what its profile holds.
func check(path, profile string) (Source, error) {
	if path == "" {
		return Source{}, fmt.Errorf("awscreds: %s is not set: mount the credentials Secret and set it to the file's path (without it the SDK would fall back to the node's instance role)", FileEnv)
	}
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Source{}, fmt.Errorf("awscreds: credentials file %s (from %s or WithCredentialsFile) does not exist: is the Secret mounted there?", path, FileEnv)
	case err != nil:
		return Source{}, fmt.Errorf("awscreds: cannot read credentials file: %w", err)
	case strings.TrimSpace(string(data)) == "":
		return Source{}, fmt.Errorf("awscreds: credentials file %s is empty", path)
	}
	file, err := credfile.Parse(string(data))
	if err != nil {
		return Source{}, fmt.Errorf("awscreds: credentials file %s: %w", path, err)
	}
	p, ok := file[profile]
	if !ok {
		return Source{}, fmt.Errorf("awscreds: credentials file %s has no [%s] profile", path, profile)
	}
	where := fmt.Sprintf("credentials file %s, profile [%s]", path, profile)
	for _, key := range []string{"source_profile", "credential_source"} {
		if p[key] != "" {
			return Source{}, fmt.Errorf("awscreds: %s sets %s: only a key pair or role_arn with web_identity_token_file is accepted", where, key)
		}
	}
	src := Source{File: path, Profile: profile}
	if _, _, _, ok := file.StaticKey(profile); ok {
		src.Kind = StaticFile
		return src, nil
	}
	if p["role_arn"] != "" && p["web_identity_token_file"] != "" {
		src.Kind, src.RoleARN = WebIdentity, p["role_arn"]
		return src, nil
	}
	pairs := [][2]string{{"aws_access_key_id", "aws_secret_access_key"}, {"role_arn", "web_identity_token_file"}}
	for _, pair := range pairs {
		for i, key := range pair {
			if p[key] != "" {
				return Source{}, fmt.Errorf("awscreds: %s has %s but no %s", where, key, pair[1-i])
			}
		}
	}
	return Source{}, fmt.Errorf("awscreds: %s has neither a key pair (aws_access_key_id, aws_secret_access_key) nor role_arn with web_identity_token_file", where)
}

// resolve loads the SDK configuration from the file alone, retrieves the
// credentials once and checks the SDK used the source check found.
func resolve(ctx context.Context, o options, want Source) (aws.Config, error) {
	// The web-identity provider is built before LoadDefaultConfig applies
	// the base endpoint, so with an endpoint its STS client is bound to
	// the finished configuration after loading.
	var late lateSTS
	load := append([]func(*config.LoadOptions) error{}, o.load...)
	if o.endpoint != "" {
		load = append(load,
			config.WithBaseEndpoint(o.endpoint),
			config.WithWebIdentityRoleCredentialOptions(func(w *stscreds.WebIdentityRoleOptions) { w.Client = &late }))
	}
	load = append(load,
		config.WithSharedCredentialsFiles([]string{o.file}),
		config.WithSharedConfigFiles([]string{o.file}),
		// A profile named here is read even when environment keys are set.
		config.WithSharedConfigProfile(o.profile),
		config.WithEC2IMDSClientEnableState(imds.ClientDisabled),
	)
	cfg, err := config.LoadDefaultConfig(ctx, load...)
	if err != nil {
		return aws.Config{}, fmt.Errorf("awscreds: loading %s: %w", o.file, err)
	}
	if o.endpoint != "" {
		anonymous := cfg.Copy()
		anonymous.Credentials = aws.AnonymousCredentials{}
		late.client = sts.NewFromConfig(anonymous)
	}
	if cfg.Credentials == nil {
		return aws.Config{}, fmt.Errorf("awscreds: %s gave no credentials provider", o.file)
	}
	creds, err := cfg.Credentials.Retrieve(ctx)
	if err != nil {
		return aws.Config{}, fmt.Errorf("awscreds: retrieving credentials (%s): %w", want, err)
	}
	if err := checkSource(creds.Source, want); err != nil {
		return aws.Config{}, err
	}
	return cfg, nil
}

// checkSource refuses credentials from a provider other than the one the
// file's profile calls for.
func checkSource(got string, want Source) error {
	switch want.Kind {
	case StaticFile:
		if strings.HasPrefix(got, "SharedConfigCredentials:") {
			return nil
		}
	case WebIdentity:
		if got == stscreds.WebIdentityProviderName {
			return nil
		}
	}
	return fmt.Errorf("awscreds: credentials came from %q, not the %s the file %s holds; refusing to start", got, want.Kind, want.File)
}

// lateSTS is an STS client set once the configuration is loaded.
type lateSTS struct{ client *sts.Client }

func (l *lateSTS) AssumeRoleWithWebIdentity(ctx context.Context, in *sts.AssumeRoleWithWebIdentityInput, opts ...func(*sts.Options)) (*sts.AssumeRoleWithWebIdentityOutput, error) {
	if l.client == nil {
		return nil, errors.New("awscreds: STS client used before the configuration was loaded")
	}
	return l.client.AssumeRoleWithWebIdentity(ctx, in, opts...)
}
