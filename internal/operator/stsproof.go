package operator

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/iamclient"
)

// proofSession is the session name of the proof's AssumeRoleWithWebIdentity.
const proofSession = "leash-proof"

// proveRole shows, before the Secret is written, that a pod of the
// request's first service account will get the role: a token of that
// account, for the pinned audience, is exchanged with STS and the session
// is asked who it is. IAM takes seconds to honour a new role's trust, so a
// refusal is retried with backoff up to the proof timeout, as a new key's
// is; a missing provider is not retried, as only the administrator makes it.
func (p *Provisioner) proveRole(ctx context.Context, rc *rootClient, cr *leashv1.CredentialsRequest, r mintedUser) error {
	ns, sa := cr.Spec.SecretRef.Namespace, cr.Spec.ServiceAccountNames[0]
	token, err := p.cluster.ServiceAccountToken(ctx, ns, sa, p.audience(), proofTokenExpiry)
	switch {
	case errors.Is(err, ErrNoTokenAPI):
		p.event(cr, "ProofSkipped", "did not prove role %s before writing the Secret: there is no API server to ask for a token of ServiceAccount %s/%s (give --oidc-issuer-dir, the folder leash sts create-issuer made, to sign one)", r.arn, ns, sa)
		return nil
	case errors.Is(err, ErrTokenForbidden):
		return &Failure{Type: leashv1.CredentialsProvisionFailure, Reason: ReasonTokenRequestForbidden,
			Message: fmt.Sprintf("the API server refused leash a token of ServiceAccount %s/%s to prove role %s (%v); grant the operator create on serviceaccounts/token", ns, sa, r.arn, err)}
	case errors.Is(err, ErrNoServiceAccount):
		return &Failure{Type: leashv1.CredentialsProvisionFailure, Reason: ReasonServiceAccountNotFound,
			Message: fmt.Sprintf("spec.serviceAccountNames[0]: ServiceAccount %s/%s does not exist, so leash cannot prove role %s with its token; create it (the Secret follows)", ns, sa, r.arn)}
	case err != nil:
		return fmt.Errorf("request a token of ServiceAccount %s/%s: %w", ns, sa, err)
	}
	want := fmt.Sprintf("arn:%s:sts::%s:assumed-role/%s/%s", partition(rc.identity.ARN), rc.identity.Account, r.name, proofSession)
	pctx, cancel := context.WithTimeout(ctx, p.cfg.ProofTimeout)
	defer cancel()
	wait := 250 * time.Millisecond
	var refused *Failure // STS's last refusal, reported when time runs out
	for {
		key, err := rc.iam.AssumeRoleWithWebIdentity(pctx, r.arn, proofSession, token, 0)
		if err == nil {
			id, ierr := rc.iam.WithKey(key).CallerIdentity(pctx)
			if ierr != nil {
				return fmt.Errorf("prove role %s: %w", r.arn, ierr)
			}
			if id.ARN != want {
				return fmt.Errorf("prove role %s: the session acts as %s, not %s", r.arn, id.ARN, want)
			}
			return nil
		}
		if f := proofFailure(err, p.cfg.OIDCIssuer, ns, sa, r.arn); f != nil {
			if f.Reason != ReasonTrustRefused {
				return f
			}
			refused = f
		}
		if pctx.Err() != nil {
			if refused != nil {
				return refused
			}
			return fmt.Errorf("prove role %s within %v: %w", r.arn, p.cfg.ProofTimeout, err)
		}
		if !iamclient.IsAccessDenied(err) && !iamclient.IsInvalidKey(err) {
			return fmt.Errorf("prove role %s: %w", r.arn, err)
		}
		select {
		case <-pctx.Done():
		case <-time.After(wait):
		}
		wait = min(wait*2, 5*time.Second)
	}
}

// proofFailure is the condition for STS's refusal of the proof's token,
// naming the step and the fix; nil for other errors.
func proofFailure(err error, issuer, ns, sa, role string) *Failure {
	code := iamclient.ResultCode(err)
	switch {
	case code == "InvalidIdentityToken" && strings.Contains(err.Error(), "No OpenIDConnect provider"):
		return &Failure{Type: leashv1.CredentialsProvisionFailure, Reason: ReasonOIDCProviderNotFound,
			Message: fmt.Sprintf("STS knows no OIDC provider for issuer %s, so no token of it can assume role %s; create it (leash sts create-provider --oidc-issuer %s)", issuer, role, issuer)}
	case code == "InvalidIdentityToken":
		return &Failure{Type: leashv1.CredentialsProvisionFailure, Reason: ReasonTokenRefused,
			Message: fmt.Sprintf("STS refused the token of ServiceAccount %s/%s (%s); check --oidc-issuer is the kube-apiserver's --service-account-issuer and the provider holds its keys", ns, sa, code)}
	case iamclient.IsAccessDenied(err):
		return &Failure{Type: leashv1.CredentialsProvisionFailure, Reason: ReasonTrustRefused,
			Message: fmt.Sprintf("STS refused a token of ServiceAccount %s/%s for role %s (AccessDenied): the role's trust does not allow it; check the role's trust names the provider, the service account and the audience", ns, sa, role)}
	}
	return nil
}
