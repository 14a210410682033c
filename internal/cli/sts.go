package cli

import (
	"github.com/spf13/cobra"
)

func newSTS() *cobra.Command {
	const short = "Credentials with no secret: a cluster's OIDC issuer, the IAM provider and roles a service account assumes"
	cmd := &cobra.Command{
		Use:   "sts",
		Short: short,
		Long: long(short, `sts moves controllers to STS: instead of an access key, a pod holds a
projected service account token that AWS exchanges for a role session
(AssumeRoleWithWebIdentity).

create-issuer makes the cluster's service-account issuer (its signing key,
discovery document and JWKS, laid out as they are served) and prints the
kube-apiserver flags that use it; rotate-key replaces the signing key and
keeps the old public key published until the tokens it signed have expired;
create-provider makes the IAM OIDC provider that trusts the issuer. The
same calls work against AWS and leash local (--endpoint).`),
		Example: example(
			"# An issuer served from an S3 bucket, and the provider that trusts it",
			"leash sts create-issuer --bucket my-cluster-oidc --region eu-west-1 --out issuer/",
			"leash sts create-provider --oidc-issuer https://my-cluster-oidc.s3.eu-west-1.amazonaws.com",
		),
		Args: cobra.NoArgs,
	}
	// Subcommands of leash sts: add each one to this list (one per line keeps
	// merges of parallel additions apart).
	cmd.AddCommand(
		newSTSCreateIssuer(),
		newSTSRotateKey(),
		newSTSCreateProvider(),
		newSTSCreateRoles(),
		newSTSDelete(),
	)
	return cmd
}
