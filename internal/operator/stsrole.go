package operator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/internal/oidcissuer"
	"leash.dev/leash/policy"
)

// DefaultAudience is the audience of the service-account tokens a made
// role trusts, and of the token the proof asks for: the one STS expects.
const DefaultAudience = oidcissuer.DefaultAudience

// roleSessionDuration is the longest session a made role allows.
const roleSessionDuration = time.Hour

// proofTokenExpiry is the life of the token the proof asks for: the API
// server's minimum, as the token is used once, at once.
const proofTokenExpiry = 10 * time.Minute

// ErrNoTokenAPI is what a Cluster with no TokenRequest API returns (a
// folder of manifests with no issuer key to sign with): the proof is
// skipped, and an Event says so.
var ErrNoTokenAPI = errors.New("no token API")

// ErrTokenForbidden is what a Cluster returns when the API server refuses
// leash a service account's token.
var ErrTokenForbidden = errors.New("token request forbidden")

// ErrNoServiceAccount is what a Cluster returns for a token of a
// ServiceAccount that does not exist.
var ErrNoServiceAccount = errors.New("service account not found")

// madeRoleFor is the role leash makes for a request in STS mode: named and
// placed as a minted user would be, so the naming rules are one.
func (p *Provisioner) madeRoleFor(cr *leashv1.CredentialsRequest, root iamclient.Identity) mintedUser {
	u := p.userFor(cr, root)
	u.role = true
	u.arn = strings.Replace(u.arn, ":user/", ":role/", 1)
	return u
}

// stsRole makes the request's role, keeps its trust and policy in step
// with the request, proves a token of the request's service account can
// assume it, and only then writes the web-identity Secret. The role is
// created with its ownership tags in the same call, so a crash after any
// IAM call leaves a role a later sync adopts or the sweep deletes.
func (p *Provisioner) stsRole(ctx context.Context, cr *leashv1.CredentialsRequest, spec *leashv1.AWSProviderSpec, out *Outcome) error {
	if p.cfg.OIDCIssuer == "" {
		return &Failure{Type: leashv1.CredentialsProvisionFailure, Reason: ReasonOIDCIssuerMissing,
			Message: "STS mode without spec.providerSpec.stsIAMRoleARN: leash makes the role, and needs the cluster's service-account issuer to trust; start the operator with --oidc-issuer URL (the kube-apiserver's --service-account-issuer), or give stsIAMRoleARN"}
	}
	rc, _, err := p.rootClient(ctx)
	if err != nil {
		return err
	}
	r := p.madeRoleFor(cr, rc.identity)
	out.Granted = grantedActions(spec)
	trust, want, err := p.roleTrust(cr, rc.identity)
	if err != nil {
		return err
	}
	plan, err := planPolicy(spec, r)
	if err != nil {
		return err // nothing created yet
	}
	if err := p.ensureMadeRole(ctx, rc, cr, r, plan, madeRoleSpec{trust: trust, want: want,
		trustedBy: "spec.serviceAccountNames " + strings.Join(cr.Spec.ServiceAccountNames, ", ")}, out); err != nil {
		return err
	}
	if err := p.proveRole(ctx, rc, cr, r); err != nil {
		return err
	}
	if err := p.writeWebIdentity(ctx, cr, r.arn); err != nil {
		return err
	}
	out.Provisioned = true
	return nil
}

// audience is the audience the made roles trust.
func (p *Provisioner) audience() string {
	if p.cfg.Audience != "" {
		return p.cfg.Audience
	}
	return DefaultAudience
}

// roleTrust is the made role's trust policy: web identity from the
// cluster's issuer's provider only, for exactly the request's service
// accounts (StringEquals, never StringLike) and the audience.
func (p *Provisioner) roleTrust(cr *leashv1.CredentialsRequest, root iamclient.Identity) (string, *policy.Document, error) {
	provider, err := oidcissuer.ProviderARN(root.Account, p.cfg.OIDCIssuer)
	if err != nil {
		return "", nil, &Failure{Type: leashv1.CredentialsProvisionFailure, Reason: ReasonOIDCIssuerInvalid, Message: "--oidc-issuer: " + err.Error()}
	}
	if part := partition(root.ARN); part != "aws" {
		provider = strings.Replace(provider, "arn:aws:", "arn:"+part+":", 1)
	}
	prefix, _ := oidcissuer.ConditionPrefix(p.cfg.OIDCIssuer)
	ns := cr.Spec.SecretRef.Namespace
	subs := make([]string, len(cr.Spec.ServiceAccountNames))
	for i, sa := range cr.Spec.ServiceAccountNames { // checked by checkRoleRequest
		subs[i] = "system:serviceaccount:" + ns + ":" + sa
	}
	var sub any = subs
	if len(subs) == 1 {
		sub = subs[0]
	}
	doc := map[string]any{
		"Version": policy.Version2012,
		"Statement": []any{map[string]any{
			"Effect":    "Allow",
			"Principal": map[string]any{"Federated": provider},
			"Action":    "sts:AssumeRoleWithWebIdentity",
			"Condition": map[string]any{"StringEquals": map[string]any{prefix + ":sub": sub, prefix + ":aud": p.audience()}},
		}},
	}
	text, err := json.Marshal(doc)
	if err != nil {
		return "", nil, err
	}
	parsed, err := policy.Parse(text, policy.Trust)
	if err != nil {
		return "", nil, fmt.Errorf("trust policy of the made role: %w", err)
	}
	return string(text), parsed, nil
}

// madeRoleSpec is what a made role must have besides its name and tags:
// its trust (as text, and parsed to compare with IAM's), its permissions
// boundary (the ceiling or --permissions-boundary, as a minted user's;
// empty for none), and whom the trust admits, for the Events.
// ensureMadeRole keeps a role leash makes (STS or Broker mode) in step with
// its request: the role with spec's trust and the ceiling as boundary, then
// the request's statements as its policy, inline or managed as plan says.
// Both modes go through here, so a made role is one thing whoever may
// assume it.
func (p *Provisioner) ensureMadeRole(ctx context.Context, rc *rootClient, cr *leashv1.CredentialsRequest, r mintedUser, plan policyPlan, spec madeRoleSpec, out *Outcome) error {
	boundary, release, err := p.boundaryFor(ctx, rc)
	if err != nil {
		return err // nothing created yet
	}
	spec.boundary = boundary
	fresh, err := p.ensureRole(ctx, rc.iam, cr, r, spec)
	release() // the role has the boundary: a change of the ceiling may walk now
	if err != nil {
		return err
	}
	out.Principal = r.arn
	if plan.inline {
		return p.ensureInlinePolicy(ctx, rc.iam, cr, r, fresh, plan.parts[0])
	}
	out.PolicyNote = plan.note()
	return p.ensureManagedPolicies(ctx, rc.iam, cr, r, fresh, plan.parts)
}

type madeRoleSpec struct {
	trust               string
	want                *policy.Document
	boundary, trustedBy string
}

// ensureRole creates the role with its trust, boundary, tags and session
// limit, or adopts the one an earlier sync made and brings its trust and
// boundary in line. A role of that name that is not this request's is
// never adopted.
func (p *Provisioner) ensureRole(ctx context.Context, c *iamclient.Client, cr *leashv1.CredentialsRequest, r mintedUser, spec madeRoleSpec) (bool, error) {
	trust, want, trustedBy := spec.trust, spec.want, spec.trustedBy
	role, err := c.GetRole(ctx, r.name)
	fresh := false
	if iamclient.IsNotFound(err) {
		_, err = c.CreateRole(ctx, iamclient.NewRole{Name: r.name, Path: r.path, Trust: trust, MaxSessionDuration: roleSessionDuration,
			Tags: p.ownerTags(cr), Boundary: spec.boundary})
		if err == nil {
			p.event(cr, "RoleCreated", "created IAM role %s trusted by %s", r.name, trustedBy)
			return true, nil
		}
		if iamclient.IsAlreadyExists(err) {
			role, err = c.GetRole(ctx, r.name)
		}
	}
	if err != nil {
		return false, err
	}
	if owner := role.Tags[TagRequestUID]; owner != string(cr.UID) {
		return false, &Failure{Type: leashv1.CredentialsProvisionFailure, Reason: ReasonRoleNameTaken,
			Message: fmt.Sprintf("IAM role %s exists but is not this request's (its %s tag is %q); delete or rename it, or change --cluster-name", r.name, TagRequestUID, owner)}
	}
	have, perr := policy.Parse([]byte(role.Trust), policy.Trust)
	if perr != nil || !policy.Equivalent(have, want) {
		if err := c.UpdateTrust(ctx, r.name, trust); err != nil {
			return fresh, err
		}
		p.event(cr, "RoleUpdated", "updated the trust policy of IAM role %s to %s", r.name, trustedBy)
	}
	if role.Boundary != spec.boundary {
		if spec.boundary == "" {
			err = c.DeleteRoleBoundary(ctx, r.name)
		} else {
			err = c.PutRoleBoundary(ctx, r.name, spec.boundary)
		}
		if err != nil {
			return fresh, err
		}
		p.event(cr, "BoundaryUpdated", "set the permissions boundary of IAM role %s to %q", r.name, spec.boundary)
	}
	return fresh, nil
}

// ownerTags are the tags that tie what leash makes to its request.
func (p *Provisioner) ownerTags(cr *leashv1.CredentialsRequest) map[string]string {
	return map[string]string{
		TagCluster: p.cfg.ClusterName, TagRequestUID: string(cr.UID), TagRequest: cr.Namespace + "/" + cr.Name,
		"kubernetes.io/cluster/" + p.cfg.ClusterName: "owned",
	}
}

// validateIssuer checks the issuer and audience settings at start, naming
// the flag.
func (c *Config) validateIssuer() error {
	if c.OIDCIssuer != "" {
		if _, err := oidcissuer.ConditionPrefix(c.OIDCIssuer); err != nil {
			return fmt.Errorf("--oidc-issuer: %w", err)
		}
	}
	if strings.TrimSpace(c.Audience) != c.Audience || strings.ContainsAny(c.Audience, "\n\t") {
		return fmt.Errorf("--oidc-audience %q: give the audience without spaces (the default is %s)", c.Audience, DefaultAudience)
	}
	return nil
}
