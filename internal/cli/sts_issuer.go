package cli

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"leash.dev/leash/internal/inputerr"
	"leash.dev/leash/internal/oidcissuer"
)

// errPruneEarly is rotate-key --prune's "no": a retired key's tokens may
// still be valid. It wraps errNotReady, which Run maps to ExitNo.
var errPruneEarly = fmt.Errorf("%w: a retired key may not be pruned yet", errNotReady)

type createIssuerOptions struct {
	out, name, issuerURL, bucket, region string
	maxTokenLifetime                     time.Duration
	lifetimeGiven                        bool
}

func newSTSCreateIssuer() *cobra.Command {
	var o createIssuerOptions
	const short = "Make a cluster's service-account token issuer: signing key, JWKS and discovery document"
	cmd := &cobra.Command{
		Use:   "create-issuer --out DIR (--issuer-url URL | --bucket NAME --region REGION | --name CLUSTER --region REGION)",
		Short: short,
		Long: long(short, `create-issuer makes the OIDC issuer kube-apiserver signs service account
tokens as, in the folder --out:

  DIR/issuer.json                          the issuer URL, its keys, when each
                                           was retired, the max token lifetime
  DIR/keys/KID.key                         the signing key (RSA 2048, 0600)
  DIR/keys/KID.pub                         every published public key
  DIR/public/.well-known/openid-configuration
  DIR/public/keys.json                     the JWKS (jwks_uri)

DIR/public is served as-is at the issuer URL; STS reads it to check the
tokens. KID is the key ID kube-apiserver puts in the tokens it signs. The
private key is never printed. It prints the kube-apiserver flags that use the
files and how to publish DIR/public.

The issuer URL is --issuer-url, or the S3 bucket --bucket in --region
(https://NAME.s3.REGION.amazonaws.com), or with --name CLUSTER the bucket
CLUSTER-oidc in --region. It must be https with no query,
fragment or trailing slash. --max-token-lifetime bounds every token the API
server issues (--service-account-max-token-expiration, with extension of
projected tokens turned off so the bound holds): rotate-key --prune counts on
it to know when a retired key has signed its last valid token.

DIR is made whole or not at all. Run again on the same issuer, it changes
nothing and says so; a folder holding anything else is refused.`),
		Example: example(
			"# An issuer served from a public S3 bucket",
			"leash sts create-issuer --bucket my-cluster-oidc --region eu-west-1 --out issuer/",
			"aws s3 sync issuer/public s3://my-cluster-oidc/",
			"",
			"# The same, the bucket named after the cluster (prod-oidc)",
			"leash sts create-issuer --name prod --region eu-west-1 --out issuer/",
			"",
			"# An issuer served from your own web server, with tokens of at most 12 hours",
			"leash sts create-issuer --issuer-url https://oidc.example.com/prod --max-token-lifetime 12h --out issuer/",
		),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.lifetimeGiven = cmd.Flags().Changed("max-token-lifetime")
			return runCreateIssuer(cmd.OutOrStdout(), o, time.Now())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.out, "out", "", "`DIR` to make the issuer in: new or empty (required, e.g. --out issuer/)")
	f.StringVar(&o.name, "name", "", "`CLUSTER` name: the issuer is the S3 bucket CLUSTER-oidc in --region, unless --bucket names another (e.g. --name prod)")
	f.StringVar(&o.issuerURL, "issuer-url", "", "the issuer `URL` the tokens name and DIR/public is served at (e.g. --issuer-url https://oidc.example.com/prod)")
	f.StringVar(&o.bucket, "bucket", "", "S3 bucket `NAME` DIR/public is served from, instead of --issuer-url; with --region (e.g. --bucket my-cluster-oidc)")
	f.StringVar(&o.region, "region", "", "AWS `REGION` of --bucket (e.g. --region eu-west-1)")
	f.DurationVar(&o.maxTokenLifetime, "max-token-lifetime", oidcissuer.DefaultMaxTokenLifetime, "longest a service account token lives (kube-apiserver --service-account-max-token-expiration); at least 10m")
	return cmd
}

// bucketName and regionName are the S3 bucket names that work as an https
// issuer host (no dots: S3's certificate covers one label) and AWS regions.
var (
	bucketName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$`)
	regionName = regexp.MustCompile(`^[a-z]{2}(-[a-z]+)+-[0-9]+$`)
)

// url is the issuer URL the flags name.
func (o createIssuerOptions) url() (string, error) {
	if o.name != "" {
		switch {
		case o.issuerURL != "":
			return "", &inputerr.Error{Source: "--name", Msg: "names the issuer's bucket (NAME-oidc); with --issuer-url it has no use: drop one of them"}
		case !bucketName.MatchString(o.name + "-oidc"):
			return "", &inputerr.Error{Source: "--name " + o.name, Msg: "does not make an S3 bucket name (NAME-oidc): use lowercase letters, digits and hyphens, at most 58 characters"}
		case o.bucket == "":
			o.bucket = o.name + "-oidc"
		}
	}
	switch {
	case o.issuerURL != "" && (o.bucket != "" || o.region != ""):
		return "", &inputerr.Error{Source: "--issuer-url", Msg: "give either --issuer-url or --bucket with --region, not both"}
	case o.issuerURL != "":
		return o.issuerURL, nil
	case o.bucket == "" && o.region == "":
		return "", &inputerr.Error{Msg: "no issuer: give --issuer-url https://HOST[/PATH], or --bucket NAME --region REGION"}
	case o.bucket == "" || o.region == "":
		return "", &inputerr.Error{Source: "--bucket", Msg: "--bucket and --region go together: give both"}
	case !bucketName.MatchString(o.bucket):
		return "", &inputerr.Error{Source: "--bucket " + o.bucket, Msg: "is not an S3 bucket name served over https: 3 to 63 lowercase letters, digits and hyphens (a name with dots fails S3's certificate)"}
	case !regionName.MatchString(o.region):
		return "", &inputerr.Error{Source: "--region " + o.region, Msg: "is not an AWS region (e.g. eu-west-1)"}
	}
	return "https://" + o.bucket + ".s3." + o.region + ".amazonaws.com", nil
}

func runCreateIssuer(stdout io.Writer, o createIssuerOptions, now time.Time) error {
	if o.out == "" {
		return &inputerr.Error{Source: "--out", Msg: "is required: the folder to make the issuer in (e.g. --out issuer/)"}
	}
	url, err := o.url()
	if err != nil {
		return err
	}
	lifetime := time.Duration(0)
	if o.lifetimeGiven {
		lifetime = o.maxTokenLifetime
		if lifetime <= 0 {
			return &inputerr.Error{Source: "--max-token-lifetime", Msg: "must be positive (e.g. 24h)"}
		}
	}
	is, existed, err := oidcissuer.Create(o.out, oidcissuer.CreateOptions{URL: url, MaxTokenLifetime: lifetime, Now: now})
	if err != nil {
		return err
	}
	if existed {
		fmt.Fprintf(stdout, "%s already holds the issuer %s (signing key %s): nothing changed.\n\n", o.out, is.URL, is.SigningKey().ID)
	} else {
		fmt.Fprintf(stdout, "Made the issuer %s in %s: signing key %s (the private key stays in %s), tokens of at most %v.\n\n",
			is.URL, o.out, is.SigningKey().ID, oidcissuer.KeysDir+"/", time.Duration(is.MaxTokenLifetime))
	}
	printPublish(stdout, 1, o.out, is.URL)
	printAPIServerFlags(stdout, 2, o.out, is, "Start")
	fmt.Fprintf(stdout, "3. Make the IAM OIDC provider that trusts it:\n     leash sts create-provider --oidc-issuer %s\n", is.URL)
	return nil
}

// bucketURL matches the issuer URL --bucket and --region give.
var bucketURL = regexp.MustCompile(`^https://([a-z0-9-]+)\.s3\.[a-z0-9-]+\.amazonaws\.com$`)

// printPublish says how to serve DIR/public at the issuer URL: with aws s3
// sync when the URL is a bucket's, as --bucket makes it.
func printPublish(w io.Writer, step int, dir, url string) {
	public := strings.TrimSuffix(dir, "/") + "/" + oidcissuer.PublicDir
	if m := bucketURL.FindStringSubmatch(url); m != nil {
		bucket := m[1]
		fmt.Fprintf(w, "%d. Publish %s as-is, readable by anyone (STS fetches it without credentials):\n     aws s3 sync %s s3://%s/\n", step, public, public, bucket)
		return
	}
	fmt.Fprintf(w, "%d. Publish %s as-is at %s (e.g. aws s3 sync %s s3://BUCKET/PATH/): STS reads\n     %s/%s and %s/%s without credentials.\n",
		step, public, url, public, url, oidcissuer.DiscoveryPath, url, oidcissuer.JWKSPath)
}

// printAPIServerFlags prints the flags, one a line, ready to paste.
func printAPIServerFlags(w io.Writer, step int, dir string, is oidcissuer.Issuer, verb string) {
	fmt.Fprintf(w, "%d. %s kube-apiserver with these flags (they replace any earlier service-account ones):\n", step, verb)
	for _, f := range oidcissuer.APIServerFlags(dir, is) {
		fmt.Fprintf(w, "     %s\n", f)
	}
}

type rotateKeyOptions struct {
	out          string
	prune, force bool
}

func newSTSRotateKey() *cobra.Command {
	var o rotateKeyOptions
	const short = "Replace the issuer's signing key, keeping the old public key published until its tokens expire"
	cmd := &cobra.Command{
		Use:   "rotate-key --out DIR [--prune [--force]]",
		Short: short,
		Long: long(short, `rotate-key makes a new signing key for the issuer in DIR (made by
create-issuer). The JWKS then publishes the new key beside the old ones, the
old private key is deleted, and the old key's retirement time is recorded.
Publish DIR/public, then restart kube-apiserver with the printed flags: from
then on tokens are signed by the new key, and tokens the old key signed still
verify, at STS and at the API server, until they expire.

--prune removes the keys retired more than the max token lifetime ago (every
token they signed has expired by then), and refuses (exit 1) while one is
younger, naming the time it may be pruned; --force prunes it anyway, which
ends the sessions its tokens could still start. The count starts at
rotate-key: restart the API server right after it, or wait as much longer.

A run cut short is finished by the next one.

Exit status: 0 when the key was rotated or pruned, 1 when --prune is too
early, 2 on bad input.`),
		Example: example(
			"# A new signing key",
			"leash sts rotate-key --out issuer/",
			"",
			"# A day later (the default max token lifetime): stop publishing the old key",
			"leash sts rotate-key --out issuer/ --prune",
		),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runRotateKey(cmd.OutOrStdout(), cmd.ErrOrStderr(), o, time.Now())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.out, "out", "", "`DIR` of the issuer, as create-issuer made it (required, e.g. --out issuer/)")
	f.BoolVar(&o.prune, "prune", false, "remove retired keys whose tokens have all expired, instead of rotating")
	f.BoolVar(&o.force, "force", false, "with --prune, remove retired keys even if tokens they signed may still be valid")
	return cmd
}

func runRotateKey(stdout, stderr io.Writer, o rotateKeyOptions, now time.Time) error {
	if o.out == "" {
		return &inputerr.Error{Source: "--out", Msg: "is required: the issuer's folder, as create-issuer made it (e.g. --out issuer/)"}
	}
	if o.force && !o.prune {
		return &inputerr.Error{Source: "--force", Msg: "goes with --prune only"}
	}
	if _, err := oidcissuer.Load(o.out); err != nil {
		return &inputerr.Error{Source: "--out " + o.out, Msg: err.Error()}
	}
	if o.prune {
		return runPrune(stdout, stderr, o, now)
	}
	is, retired, err := oidcissuer.Rotate(o.out, now)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "New signing key %s. The old key %s was retired at %s; it stays published until\n%s (its retirement plus the max token lifetime).\n\n",
		is.SigningKey().ID, retired.ID, retired.RetiredAt.Format(time.RFC3339), is.PruneAt(retired).Format(time.RFC3339))
	printPublish(stdout, 1, o.out, is.URL)
	printAPIServerFlags(stdout, 2, o.out, is, "Restart")
	fmt.Fprintf(stdout, "3. From %s, stop publishing the old key:\n     leash sts rotate-key --out %s --prune\n", is.PruneAt(retired).Format(time.RFC3339), o.out)
	return nil
}

func runPrune(stdout, stderr io.Writer, o rotateKeyOptions, now time.Time) error {
	is, pruned, err := oidcissuer.Prune(o.out, now, o.force)
	var early *oidcissuer.TooEarlyError
	if err != nil && !errors.As(err, &early) {
		return err
	}
	for _, k := range pruned {
		fmt.Fprintf(stdout, "Pruned %s (retired at %s).\n", k.ID, k.RetiredAt.Format(time.RFC3339))
	}
	if len(pruned) > 0 {
		fmt.Fprintln(stdout)
		printPublish(stdout, 1, o.out, is.URL)
		printAPIServerFlags(stdout, 2, o.out, is, "Restart")
	} else if early == nil {
		fmt.Fprintf(stdout, "No retired key in %s: nothing to prune.\n", o.out)
	}
	if early != nil {
		fmt.Fprintf(stderr, "leash sts rotate-key: --prune: %v\n", early)
		return errPruneEarly
	}
	return nil
}
