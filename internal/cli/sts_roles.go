package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/inputerr"
	"leash.dev/leash/internal/operator"
	"leash.dev/leash/internal/termsafe"
)

// stsRolesOptions is what leash sts create-roles and delete take.
type stsRolesOptions struct {
	dir   string
	where folderTarget
	cfg   operator.Config
}

func (o *stsRolesOptions) addFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVarP(&o.dir, "filename", "f", "", "folder `DIR` of CredentialsRequest manifests (*.yaml, *.yml; other kinds are skipped)")
	o.where.addFlags(f)
	o.where.access.getenv = os.Getenv
	o.where.access.addCredentialFlags(f)
	f.StringVar(&o.cfg.ClusterName, "cluster-name", "leash", "`NAME` that prefixes the roles and tags them (letters, digits, - _ .); delete needs the one create-roles was given")
}

func newSTSCreateRoles() *cobra.Command {
	var o stsRolesOptions
	const short = "Make one IAM role per CredentialsRequest, assumed with a service account's token"
	cmd := &cobra.Command{
		Use:   "create-roles -f DIR --oidc-issuer URL",
		Short: short,
		Long: long(short, `create-roles runs the operator's STS mode over the CredentialsRequests in DIR,
as leash apply runs Mint: for each request it makes an IAM role named from
--cluster-name and the request (within IAM's 64 characters), under the path
/leash/CLUSTER/ and tagged as leash's, whose trust allows only
sts:AssumeRoleWithWebIdentity from the IAM OIDC provider of --oidc-issuer,
with StringEquals on ISSUER:sub = system:serviceaccount:NS:SA for each of the
request's serviceAccountNames (NS being spec.secretRef.namespace) and on
ISSUER:aud = --audience. The role's permissions are the request's
statementEntries, inline or as managed policies when over the inline quota.
It writes each Secret as a manifest under --out: a credentials file with
role_arn, web_identity_token_file (the request's cloudTokenPath) and
sts_regional_endpoints, and no key. With --oidc-issuer-dir (the folder
leash sts create-issuer made), each role is first proven: a token of the
request's first service account, signed with the issuer's key, is exchanged
with AssumeRoleWithWebIdentity and the session asked who it is; without it
the proof is skipped, and each run says so.

Before it makes anything it checks every request (serviceAccountNames listed,
the statements valid, no mode annotation other than STS) and that the
provider exists with the audience among its client IDs (leash sts
create-provider makes it): bad input makes nothing. A request with
stsIAMRoleARN names its own role: none is made for it, and its Secret names
that role, as the operator does. A role of the same name that leash did
not make for the request is refused, never adopted. Running it again changes
only what the requests changed. leash sts delete removes what it made.

Where: with no AWS configured, the embedded local endpoint with its state
under --data; --endpoint, a running leash local (its administrator's key from
--data); with AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY set (or --target
aws), AWS. --credentials-file or --profile name another key to provision
with, at --endpoint or in AWS.

Exit status: 0 when every request has its role and Secret, 1 when one does
not, 2 on bad input.`),
		Example: example(
			"# The examples' roles in the embedded local endpoint, trusted by an issuer",
			"leash sts create-provider --oidc-issuer https://oidc.example.com/prod",
			"leash sts create-roles -f examples/ --oidc-issuer https://oidc.example.com/prod",
			"",
			"# Against AWS, with the root credentials in the environment",
			"AWS_ACCESS_KEY_ID=... AWS_SECRET_ACCESS_KEY=... leash sts create-roles -f requests/ \\",
			"  --oidc-issuer https://prod-oidc.s3.eu-west-1.amazonaws.com --cluster-name prod --out secrets/",
		),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runSTSCreateRoles(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), o)
		},
	}
	o.addFlags(cmd)
	f := cmd.Flags()
	f.StringVar(&o.cfg.OIDCIssuer, "oidc-issuer", "", "`URL` of the cluster's service-account issuer (kube-apiserver's --service-account-issuer), https (e.g. --oidc-issuer https://oidc.example.com/prod; default: --oidc-issuer-dir's)")
	o.where.addIssuerDirFlag(f)
	f.StringVar(&o.cfg.Audience, "audience", operator.DefaultAudience, "`AUDIENCE` the roles' trust pins: the audience of the projected tokens, a client ID of the provider")
	return cmd
}

func newSTSDelete() *cobra.Command {
	var o stsRolesOptions
	const short = "Delete the IAM roles leash sts create-roles made for a folder of CredentialsRequests"
	cmd := &cobra.Command{
		Use:   "delete -f DIR",
		Short: short,
		Long: long(short, `delete removes, for each CredentialsRequest in DIR, what leash sts
create-roles made for it: the role (found by the name create-roles gives it
under --cluster-name) with its inline policies and the managed policies
leash made for it, and the Secret manifest under --out. A role is deleted
only when its tags say leash made it for that request in that cluster; any
other role of that name, and every other role, is left alone. Running it
again deletes nothing more.

Exit status: 0 when nothing made for the requests is left, 1 when a
deletion failed, 2 on bad input.`),
		Example: example(
			"# Remove the examples' roles from the embedded local endpoint",
			"leash sts delete -f examples/",
		),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runSTSDelete(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), o)
		},
	}
	o.addFlags(cmd)
	return cmd
}

// start reads the folder and returns the provisioner in STS mode over it.
func (o *stsRolesOptions) start(ctx context.Context, stderr io.Writer) ([]*leashv1.CredentialsRequest, *operator.Provisioner, func(), error) {
	if o.dir == "" {
		return nil, nil, nil, &inputerr.Error{Msg: "-f DIR is required: the folder of CredentialsRequest manifests (e.g. -f examples/)"}
	}
	requests, err := operator.ReadRequests(o.dir)
	if err != nil {
		return nil, nil, nil, err
	}
	o.cfg.Mode = leashv1.ModeSTS
	if err := o.cfg.Validate(); err != nil {
		return nil, nil, nil, &inputerr.Error{Msg: err.Error()}
	}
	prov, stop, err := o.where.provisioner(ctx, o.cfg, operator.FolderCluster{Requests: requests}, eventPrinter{stderr})
	if err != nil {
		return nil, nil, nil, err
	}
	return requests, prov, stop, nil
}

func runSTSCreateRoles(ctx context.Context, stdout, stderr io.Writer, o stsRolesOptions) error {
	if o.cfg.OIDCIssuer == "" && o.where.issuerDir == "" {
		return &inputerr.Error{Source: "--oidc-issuer", Msg: "is required: the cluster's service-account issuer URL, which the roles trust through its IAM OIDC provider (e.g. --oidc-issuer https://oidc.example.com/prod), or its folder with --oidc-issuer-dir"}
	}
	if o.cfg.Audience == "" {
		return &inputerr.Error{Source: "--audience", Msg: "is empty: leave it out for " + operator.DefaultAudience + ", or give the audience the pods' tokens carry"}
	}
	requests, prov, stop, err := o.start(ctx, stderr)
	if err != nil {
		return err
	}
	defer stop()
	if err := preflightRoles(prov, requests); err != nil {
		return err
	}
	if err := prov.CheckOIDCProvider(ctx); err != nil {
		var f *operator.Failure
		if errors.As(err, &f) {
			return &inputerr.Error{Msg: f.Message}
		}
		return err
	}
	requests, left := withoutBroker(prov, requests)
	applied := operator.Apply(ctx, prov, requests)
	if err := operator.WriteTable(stdout, applied); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nSecrets are in %s.\n", o.where.out)
	for _, name := range left {
		fmt.Fprintf(stdout, "%s: left alone: it is in Broker mode, whose role leash apply or the operator makes for the credential broker\n", termsafe.Escape(name))
	}
	for _, a := range applied {
		if !a.Ready() && !a.Ignored() {
			return errNotReady
		}
	}
	return nil
}

// preflightRoles refuses the folder, before any IAM call, when a request
// in it could not get its role: every problem is listed, each with its
// request, field and fix.
func preflightRoles(prov *operator.Provisioner, requests []*leashv1.CredentialsRequest) error {
	var problems []string
	for _, cr := range requests {
		name := termsafe.Escape(cr.Namespace + "/" + cr.Name)
		mode, err := prov.Preflight(cr)
		if err != nil {
			problems = append(problems, name+": "+termsafe.Escape(failureText(err)))
			continue
		}
		if mode != leashv1.ModeSTS && mode != leashv1.ModeIgnored && mode != leashv1.ModeBroker {
			problems = append(problems, fmt.Sprintf("%s: metadata.annotations[%s]: is %s, and create-roles makes roles (STS mode); remove the annotation or set it to STS, or provision the request with leash apply",
				name, operator.AnnotationMode, mode))
		}
	}
	if len(problems) > 0 {
		return &inputerr.Error{Msg: "nothing was made, as the folder holds requests create-roles cannot make a role for:\n  " + strings.Join(problems, "\n  ")}
	}
	return nil
}

// withoutBroker splits off the requests in Broker mode, whose roles trust
// the credential broker, not the cluster's issuer: create-roles leaves
// them to leash apply and the operator, and names them.
func withoutBroker(prov *operator.Provisioner, requests []*leashv1.CredentialsRequest) (rest []*leashv1.CredentialsRequest, left []string) {
	for _, cr := range requests {
		if mode, err := prov.RequestMode(cr); err == nil && mode == leashv1.ModeBroker {
			left = append(left, cr.Namespace+"/"+cr.Name)
			continue
		}
		rest = append(rest, cr)
	}
	return rest, left
}

// failureText is a preflight error as a person reads it: a Failure's
// message without its reason code.
func failureText(err error) string {
	var f *operator.Failure
	if errors.As(err, &f) {
		return f.Message
	}
	return err.Error()
}

func runSTSDelete(ctx context.Context, stdout, stderr io.Writer, o stsRolesOptions) error {
	requests, prov, stop, err := o.start(ctx, stderr)
	if err != nil {
		return err
	}
	defer stop()
	failed := false
	for _, cr := range requests {
		// Only a request in STS mode had a role made by create-roles,
		// which refuses the others: a request annotated Mint may
		// have a user leash apply minted, and that is not delete's.
		mode, err := prov.RequestMode(cr)
		switch {
		case err != nil:
			fmt.Fprintf(stdout, "%s: skipped: %s\n", termsafe.Escape(cr.Namespace+"/"+cr.Name), termsafe.Escape(failureText(err)))
			continue
		case mode == leashv1.ModeIgnored:
			continue
		case mode != leashv1.ModeSTS:
			fmt.Fprintf(stdout, "%s: skipped: its mode is %s, and create-roles makes nothing for it\n", termsafe.Escape(cr.Namespace+"/"+cr.Name), mode)
			continue
		}
		if err := prov.Remove(ctx, cr); err != nil {
			failed = true
			fmt.Fprintf(stdout, "%s: %s\n", termsafe.Escape(cr.Namespace+"/"+cr.Name), termsafe.Escape(err.Error()))
		}
	}
	if failed {
		return errors.New("not everything made for the requests was deleted; run leash sts delete again")
	}
	return nil
}
