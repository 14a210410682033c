package operator

import (
	"context"
	"errors"
	"fmt"
	"strings"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/inputerr"
	"leash.dev/leash/internal/oidcissuer"
)

// checkRoleRequest refuses, before any IAM call, a request leash would make
// a role for (STS mode without stsIAMRoleARN) whose trust could not be
// written as meant: the trust names each service account of the request,
// so none is an error, and a name holding a namespace or a colon would be
// matched as a different subject.
func checkRoleRequest(cr *leashv1.CredentialsRequest) error {
	if len(cr.Spec.ServiceAccountNames) == 0 {
		return &inputerr.Error{Field: "spec.serviceAccountNames",
			Msg: "is empty, and in STS mode the role leash makes trusts exactly the ServiceAccounts listed there; list the ServiceAccounts (in spec.secretRef.namespace) whose pods use the credentials, e.g. serviceAccountNames: [cloud-controller-manager]"}
	}
	for i, sa := range cr.Spec.ServiceAccountNames {
		if sa == "" || strings.ContainsAny(sa, ":/ ") {
			return &inputerr.Error{Field: fmt.Sprintf("spec.serviceAccountNames[%d]", i),
				Msg: fmt.Sprintf("%q is not a ServiceAccount name; give the name alone (its namespace is spec.secretRef.namespace)", sa)}
		}
	}
	return nil
}

// RequestMode is the mode Sync and Remove take the request in: its
// annotation, else the configured one; ModeIgnored for another cloud.
func (p *Provisioner) RequestMode(cr *leashv1.CredentialsRequest) (leashv1.CredentialsMode, error) {
	spec, err := awsSpec(cr)
	if errors.Is(err, errNotAWS) {
		return leashv1.ModeIgnored, nil
	}
	if err != nil {
		return "", err
	}
	return p.modeOf(cr, spec)
}

// Preflight runs, for one request, every check Sync makes before its first
// IAM call, and returns the request's mode: a command that provisions a
// folder refuses the whole folder when one request is bad, so that nothing
// is half made. A request for another cloud passes (Sync ignores it).
func (p *Provisioner) Preflight(cr *leashv1.CredentialsRequest) (leashv1.CredentialsMode, error) {
	spec, err := awsSpec(cr)
	if errors.Is(err, errNotAWS) {
		return leashv1.ModeIgnored, nil
	}
	if err != nil {
		return "", err
	}
	mode, err := p.modeOf(cr, spec)
	if err != nil {
		return "", err
	}
	if _, err := p.checkRequest(cr, spec, mode); err != nil {
		return mode, err
	}
	if ref := cr.Spec.SecretRef; ref.Name == "" || ref.Namespace == "" {
		return mode, &inputerr.Error{Field: "spec.secretRef", Msg: "needs both namespace and name of the Secret to write"}
	}
	return mode, nil
}

// CheckOIDCProvider checks, before any role is made, that the IAM OIDC
// provider of the configured issuer exists and lists the audience among its
// client IDs: a role trusting a provider that is missing, or that refuses
// the audience, could never be assumed. Where a cluster proves each role
// with a token, the proof finds this too; without one (a folder) nothing
// else would.
func (p *Provisioner) CheckOIDCProvider(ctx context.Context) error {
	rc, _, err := p.rootClient(ctx)
	if err != nil {
		return err
	}
	_, found, err := oidcissuer.FindProvider(ctx, rc.iam, p.cfg.OIDCIssuer, p.audience())
	if err != nil {
		return err
	}
	if !found {
		arn, _ := oidcissuer.ProviderARN(rc.identity.Account, p.cfg.OIDCIssuer)
		return &Failure{Type: leashv1.CredentialsProvisionFailure, Reason: ReasonOIDCProviderNotFound,
			Message: fmt.Sprintf("--oidc-issuer %s: account %s has no IAM OIDC provider for it (%s), so no role trusting it could be assumed; make it first with leash sts create-provider --oidc-issuer %s",
				p.cfg.OIDCIssuer, rc.identity.Account, arn, p.cfg.OIDCIssuer)}
	}
	return nil
}
