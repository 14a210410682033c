package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/spf13/pflag"

	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/internal/inputerr"
	"leash.dev/leash/internal/oidcissuer"
	"leash.dev/leash/internal/operator"
	"leash.dev/leash/localaws"
)

// folderTarget is where a folder of requests is provisioned without a
// cluster, as leash apply and leash sts create-roles and delete take it: the
// embedded local endpoint with its state under data, a running leash local
// (endpoint, with the administrator's key from data), or AWS with the root
// key in the environment; the Secrets are written as manifests under out.
type folderTarget struct {
	out, data, endpoint, target string
	// access, when its --credentials-file or --profile is given, is the
	// key to provision with, at --endpoint or in AWS (commands that do
	// not add those flags leave it empty).
	access iamAccess
	// issuerDir is the issuer folder (leash sts create-issuer --out) whose
	// key signs the tokens that prove made roles; "" skips the proof.
	issuerDir string
	// jwks is the issuer's key set for the embedded endpoint, which cannot
	// fetch it from the issuer URL.
	jwks map[string]string
	// brokerUser, when set, gives the embedded endpoint a user for the
	// credential broker and returns its ARN, for a cfg with no
	// --broker-principal (leash apply, when a request is in Broker mode).
	brokerUser func(ctx context.Context, c *iamclient.Client) (string, error)
}

// addIssuerDirFlag adds --oidc-issuer-dir.
func (t *folderTarget) addIssuerDirFlag(f *pflag.FlagSet) {
	f.StringVar(&t.issuerDir, "oidc-issuer-dir", "", "issuer folder `DIR` (leash sts create-issuer --out): its key signs the token that proves each made role before its Secret is written; without it the proof is skipped")
}

// issuerSigner reads --oidc-issuer-dir: its issuer becomes cfg's when none
// is given (another one is refused), its key signs the proofs' tokens, and
// the embedded endpoint trusts its key set.
func (t *folderTarget) issuerSigner(cfg *operator.Config) (func(namespace, name, audience string, expiry time.Duration) (string, error), error) {
	if t.issuerDir == "" {
		return nil, nil
	}
	signer, err := loadIssuerSigner(t.issuerDir)
	if err != nil {
		return nil, &inputerr.Error{Msg: "--oidc-issuer-dir: " + err.Error()}
	}
	switch cfg.OIDCIssuer {
	case "":
		cfg.OIDCIssuer = signer.url
	case signer.url:
	default:
		return nil, &inputerr.Error{Msg: fmt.Sprintf("--oidc-issuer %s is not the issuer of --oidc-issuer-dir %s (%s); give one of them, or the same issuer", cfg.OIDCIssuer, t.issuerDir, signer.url)}
	}
	t.jwks = map[string]string{signer.url: oidcissuer.JWKSFile(t.issuerDir)}
	return signer.sign, nil
}

// addFlags adds --out, --data, --target and --endpoint.
func (t *folderTarget) addFlags(f *pflag.FlagSet) {
	f.StringVar(&t.out, "out", "", "folder `DIR` for the Secret manifests (default DATA/secrets with the local endpoint, else ./secrets)")
	f.StringVar(&t.data, "data", "leash-data", "folder `DIR` of the embedded local endpoint's state")
	f.StringVar(&t.target, "target", "", "where to provision: local (the embedded endpoint) or aws; default aws when AWS_ACCESS_KEY_ID is set, else local")
	f.StringVar(&t.endpoint, "endpoint", "", "`URL` of a running leash local, instead of the embedded one (its admin credentials from --data)")
}

// provisioner resolves the target (filling in out's default), starts the
// embedded endpoint when it is the target, and returns the provisioner for
// cfg over cluster, whose Dir is set to out, and the function that stops
// what was started.
func (t *folderTarget) provisioner(ctx context.Context, cfg operator.Config, cluster operator.FolderCluster, events operator.Recorder) (*operator.Provisioner, func(), error) {
	stop := func() {}
	sign, err := t.issuerSigner(&cfg)
	if err != nil {
		return nil, stop, err
	}
	cluster.SignToken = sign
	if t.access.credentialsFile != "" || t.access.profile != "" {
		return t.withCredentials(ctx, cfg, cluster, events)
	}
	if t.target == "" {
		t.target = "local"
		if os.Getenv("AWS_ACCESS_KEY_ID") != "" {
			t.target = "aws"
		}
	}
	var root operator.RootSource
	iamCfg := iamclient.Config{Endpoint: t.endpoint, HTTPClient: iamclient.NewHTTPClient(1)}
	switch t.target {
	case "local":
		if t.out == "" {
			t.out = filepath.Join(t.data, "secrets")
		}
		if t.endpoint == "" {
			local, err := localaws.StartLoopback(localaws.Config{DataDir: t.data, JWKSFiles: t.jwks})
			if err != nil {
				return nil, stop, err
			}
			stop = func() { _ = local.Stop() }
			iamCfg.Endpoint = local.URL
		}
		root = operator.FileRoot{Path: filepath.Join(t.data, localaws.AdminCredentialsFile)}
		if t.endpoint == "" && t.brokerUser != nil && cfg.BrokerPrincipal == "" {
			arn, err := t.embeddedBroker(ctx, root, iamCfg)
			if err != nil {
				stop()
				return nil, func() {}, err
			}
			cfg.BrokerPrincipal = arn
		}
	case "aws":
		key, ok := iamclient.KeyFromEnv(os.Getenv)
		if !ok {
			return nil, stop, &inputerr.Error{Msg: "--target aws needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the environment (the root credentials to provision with)"}
		}
		if t.out == "" {
			t.out = "secrets"
		}
		iamCfg.Region = os.Getenv("AWS_REGION")
		root = operator.StaticRoot{Key: key, Source: "the AWS_ACCESS_KEY_ID environment"}
	default:
		return nil, stop, &inputerr.Error{Msg: fmt.Sprintf("--target %q: use local or aws", t.target)}
	}
	prov, err := t.newProvisioner(cfg, root, iamCfg, cluster, events)
	if err != nil {
		stop()
		return nil, func() {}, err
	}
	return prov, stop, nil
}

// withCredentials provisions with the key --credentials-file or --profile
// names, at --endpoint or in AWS: the embedded endpoint has its own
// administrator, whose key is under --data.
func (t *folderTarget) withCredentials(ctx context.Context, cfg operator.Config, cluster operator.FolderCluster, events operator.Recorder) (*operator.Provisioner, func(), error) {
	none := func() {}
	if t.target == "local" && t.endpoint == "" {
		return nil, none, &inputerr.Error{Msg: "--credentials-file and --profile name the key to call --endpoint or AWS with; the embedded endpoint (--target local without --endpoint) uses its administrator's key under --data: leave them out, or give --endpoint"}
	}
	t.access.endpoint = t.endpoint
	creds, err := t.access.credentials(ctx)
	if err != nil {
		return nil, none, err
	}
	source := "--credentials-file " + t.access.credentialsFile
	if t.access.profile != "" {
		source = "--profile " + t.access.profile
	}
	if t.out == "" {
		t.out = "secrets"
	}
	iamCfg := iamclient.Config{Endpoint: t.endpoint, Region: os.Getenv("AWS_REGION"), HTTPClient: iamclient.NewHTTPClient(1)}
	prov, err := t.newProvisioner(cfg, credentialsRoot{creds: creds, source: source}, iamCfg, cluster, events)
	return prov, none, err
}

func (t *folderTarget) newProvisioner(cfg operator.Config, root operator.RootSource, iamCfg iamclient.Config, cluster operator.FolderCluster, events operator.Recorder) (*operator.Provisioner, error) {
	newIAM := func(key iamclient.AccessKey) *iamclient.Client {
		c := iamCfg
		c.Credentials = key.Provider()
		return iamclient.New(c)
	}
	cluster.Dir = t.out
	if cfg.AdminNamespaces == nil {
		// Whoever runs leash apply wrote every request in the folder and
		// owns every Secret it writes: no request borrows another's rights.
		cfg.AdminNamespaces = []string{"*"}
	}
	prov, err := operator.NewProvisioner(cfg, root, newIAM, cluster, events)
	if err != nil {
		return nil, &inputerr.Error{Msg: err.Error()}
	}
	return prov, nil
}

// embeddedBroker is the ARN of the embedded endpoint's broker user, made
// with its administrator's key.
func (t *folderTarget) embeddedBroker(ctx context.Context, root operator.RootSource, iamCfg iamclient.Config) (string, error) {
	r, err := root.Root(ctx)
	if err != nil {
		return "", err
	}
	iamCfg.Credentials = r.Key.Provider()
	return t.brokerUser(ctx, iamclient.New(iamCfg))
}

// credentialsRoot is the root key from an SDK credentials provider (a
// profile, SSO, a role chain): retrieved at each use, so that temporary
// credentials are refreshed as the SDK refreshes them.
type credentialsRoot struct {
	creds  aws.CredentialsProvider
	source string
}

// Root implements operator.RootSource.
func (r credentialsRoot) Root(ctx context.Context) (operator.Root, error) {
	c, err := r.creds.Retrieve(ctx)
	if err != nil {
		return operator.Root{}, fmt.Errorf("%s: %w", r.source, err)
	}
	key := iamclient.AccessKey{ID: c.AccessKeyID, Secret: iamclient.NewSecret(c.SecretAccessKey)}
	if c.SessionToken != "" {
		key.SessionToken = iamclient.NewSecret(c.SessionToken)
	}
	return operator.Root{Key: key, Version: c.AccessKeyID, Source: r.source}, nil
}
