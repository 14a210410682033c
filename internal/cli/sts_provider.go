package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"leash.dev/leash/internal/inputerr"
	"leash.dev/leash/internal/oidcissuer"
	"leash.dev/leash/internal/termsafe"
)

type createProviderOptions struct {
	issuer, audience string
	iamAccess
}

func newSTSCreateProvider() *cobra.Command {
	o := createProviderOptions{iamAccess: iamAccess{getenv: os.Getenv}}
	const short = "Make the IAM OIDC provider that trusts the cluster's issuer"
	cmd := &cobra.Command{
		Use:   "create-provider --oidc-issuer URL [--audience A]",
		Short: short,
		Long: long(short, `create-provider makes the IAM OpenID Connect provider for the issuer
--oidc-issuer (as create-issuer printed it), with the client ID --audience:
the audience the pods' projected tokens carry, sts.amazonaws.com unless you
change both. Roles name the provider in their trust policy; STS exchanges
only tokens of an issuer that has one.

No thumbprint is sent: IAM then takes the issuer's certificate authority
itself, and for issuers whose certificates chain to a CA AWS trusts (S3
buckets among them) uses none. Against leash local (--endpoint) the same call
is made; leash local checks the tokens against the keys it is given (leash
local --oidc-jwks ISSUER=DIR/public/keys.json).

Running it again is safe: a provider with the client ID is left as it is. A
provider for the issuer without the client ID is refused (exit 2), unchanged,
naming its client IDs: adding one widens who may assume every role that
trusts the provider, so that is left to you.`),
		Example: example(
			"# In AWS, with the credentials of your environment",
			"leash sts create-provider --oidc-issuer https://my-cluster-oidc.s3.eu-west-1.amazonaws.com",
			"",
			"# In leash local",
			"leash sts create-provider --oidc-issuer https://oidc.example.com/prod \\",
			"  --endpoint http://127.0.0.1:4566 --credentials-file leash-data/admin-credentials",
		),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runCreateProvider(cmd.Context(), cmd.OutOrStdout(), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.issuer, "oidc-issuer", "", "the issuer `URL` the tokens name (required, e.g. --oidc-issuer https://oidc.example.com/prod)")
	f.StringVar(&o.audience, "audience", oidcissuer.DefaultAudience, "client `ID` the provider accepts: the audience of the pods' tokens")
	o.addFlags(f, "make the provider")
	return cmd
}

func runCreateProvider(ctx context.Context, stdout io.Writer, o createProviderOptions) error {
	if o.issuer == "" {
		return &inputerr.Error{Source: "--oidc-issuer", Msg: "is required: the issuer URL create-issuer printed (e.g. --oidc-issuer https://oidc.example.com/prod)"}
	}
	if err := oidcissuer.CheckURL("--oidc-issuer", o.issuer); err != nil {
		return err
	}
	c, err := o.client(ctx, 3)
	if err != nil {
		return err
	}
	p, err := oidcissuer.EnsureProvider(ctx, c, o.issuer, o.audience)
	if err != nil {
		return err
	}
	// The ARN and client IDs are IAM's answer: escaped, they stay on the line.
	if p.Created {
		fmt.Fprintf(stdout, "Made the OIDC provider %s with the client ID %s.\n", termsafe.Escape(p.ARN), termsafe.Escape(o.audience))
		return nil
	}
	fmt.Fprintf(stdout, "The OIDC provider %s exists with the client IDs %s: nothing changed.\n", termsafe.Escape(p.ARN), termsafe.Escape(strings.Join(p.ClientIDs, ", ")))
	return nil
}
