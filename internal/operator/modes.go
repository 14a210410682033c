package operator

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"leash.dev/leash/analyze"
	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/credfile"
	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/policy"
)

// passthrough copies the root credentials into the Secret, but only after
// the engine has shown that the root principal is allowed every requested
// action on the requested resources under the requested conditions. A
// root key rotation reaches every passthrough Secret on the next sync.
func (p *Provisioner) passthrough(ctx context.Context, cr *leashv1.CredentialsRequest, spec *leashv1.AWSProviderSpec, out *Outcome) error {
	_, requested, err := requestedPolicy(spec)
	if err != nil {
		return err
	}
	rc, root, err := p.rootClient(ctx)
	if err != nil {
		return err
	}
	out.Principal, out.Granted = rc.identity.ARN, grantedActions(spec)
	denials, err := lacks(ctx, rc.iam, rc.perms, rc.identity.ARN, requested)
	if iamclient.IsAccessDenied(err) {
		// A root key that may neither read its own policies nor simulate
		// them stays so until the administrator grants it: a condition
		// saying what to grant, not a retry with backoff as for an outage.
		// The message leaves out AWS's error, whose request ID would change
		// the status at every recheck.
		return &Failure{Type: leashv1.InsufficientCloudCredentials, Reason: ReasonPermissionsUnknown,
			Message: fmt.Sprintf("Passthrough mode: the root credentials (%s) may neither read their own policies nor simulate them (AccessDenied), so leash cannot check they carry the requested permissions; allow them iam:Get*/iam:List* on themselves or iam:SimulatePrincipalPolicy, or use Mint or Manual mode", rc.identity.ARN)}
	}
	if err != nil {
		return err
	}
	if len(denials) > 0 {
		return &Failure{Type: leashv1.InsufficientCloudCredentials, Reason: ReasonRootLacksPermissions,
			Message: denialsMessage("the root credentials ("+rc.identity.ARN+")", denials) +
				"; grant them to the root principal, or use Mint or Manual mode"}
	}
	ref := cr.Spec.SecretRef
	cur, err := p.writableSecret(ctx, cr)
	if err != nil {
		return err
	}
	data := staticKeyData(root.Key)
	out.Provisioned = true
	if ownedBy(cur, cr) && sameData(cur.Data, data) {
		return nil
	}
	s := newSecret(cr, data)
	s.Annotations[annotationRootVersion] = root.Version
	if err := p.cluster.WriteSecret(ctx, s, cur); err != nil {
		return fmt.Errorf("write Secret %s/%s: %w", ref.Namespace, ref.Name, err)
	}
	p.event(cr, "RootCredentialsCopied", "copied the root credentials (%s, key %s) into Secret %s/%s", rc.identity.ARN, root.Key.ID, ref.Namespace, ref.Name)
	return nil
}

func sameData(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !bytes.Equal(v, b[k]) {
			return false
		}
	}
	return true
}

// manual never writes the Secret: it reports whether the administrator's
// Secret exists and is well formed and, when it holds a key, which of the
// requested permissions the key's principal lacks — the check to run before
// an upgrade that adds permissions.
func (p *Provisioner) manual(ctx context.Context, cr *leashv1.CredentialsRequest, spec *leashv1.AWSProviderSpec, out *Outcome) error {
	_, requested, err := requestedPolicy(spec)
	if err != nil {
		return err
	}
	out.Granted = grantedActions(spec)
	ref := cr.Spec.SecretRef
	s, err := p.cluster.Secret(ctx, ref.Namespace, ref.Name)
	if err != nil {
		return fmt.Errorf("read Secret %s/%s: %w", ref.Namespace, ref.Name, err)
	}
	if s == nil {
		return &Failure{Type: leashv1.CredentialsProvisionFailure, Reason: ReasonSecretMissing,
			Message: fmt.Sprintf("Manual mode: create Secret %s/%s with keys %s and %s (or a %s file); leash does not write it",
				ref.Namespace, ref.Name, SecretKeyID, SecretKeySecret, SecretKeyCredentials)}
	}
	key, problem := secretKey(s)
	if problem == "web-identity" {
		out.Provisioned = true
		return nil // a role's web identity: nothing to sign with here
	}
	if problem != "" {
		return &Failure{Type: leashv1.CredentialsProvisionFailure, Reason: ReasonSecretMalformed,
			Message: fmt.Sprintf("Manual mode: Secret %s/%s %s", ref.Namespace, ref.Name, problem)}
	}
	kc := p.newIAM(key)
	id, err := kc.CallerIdentity(ctx)
	if iamclient.IsInvalidKey(err) {
		return &Failure{Type: leashv1.InsufficientCloudCredentials, Reason: ReasonInvalidKey,
			Message: fmt.Sprintf("Manual mode: the key %s in Secret %s/%s is not a valid AWS key; replace it", key.ID, ref.Namespace, ref.Name)}
	}
	if err != nil {
		return err
	}
	out.Principal = id.ARN
	reader, err := p.keyReader(ctx, kc, id.ARN)
	if err != nil {
		return err
	}
	denials, err := lacks(ctx, reader.iam, reader.perms, id.ARN, requested)
	if err != nil {
		return &Failure{Type: leashv1.InsufficientCloudCredentials, Reason: ReasonPermissionsUnknown,
			Message: fmt.Sprintf("Manual mode: %s cannot check the permissions of %s (%s); %s", reader.who, id.ARN, iamclient.ResultCode(err), reader.fix)}
	}
	if len(denials) > 0 {
		return &Failure{Type: leashv1.InsufficientCloudCredentials, Reason: ReasonMissingPermissions,
			Message: "Manual mode: " + denialsMessage(id.ARN+" (the key in Secret "+ref.Namespace+"/"+ref.Name+")", denials) +
				"; grant them before the workload needs them"}
	}
	out.Provisioned = true
	return nil
}

// sts writes a web-identity credentials file for the role the request
// names: pods assume it with their projected service account token, and no
// long-lived key exists.
func (p *Provisioner) sts(ctx context.Context, cr *leashv1.CredentialsRequest, spec *leashv1.AWSProviderSpec, out *Outcome) error {
	_, requested, err := requestedPolicy(spec)
	if err != nil {
		return err
	}
	if err := checkRoleARN(spec); err != nil {
		return err
	}
	out.Granted = grantedActions(spec)
	denials, trust, err := p.roleLacks(ctx, spec.STSIAMRoleARN, requested)
	var u *unchecked
	if errors.As(err, &u) {
		return p.stsUnchecked(ctx, cr, spec, u, out)
	}
	if err != nil {
		return err
	}
	// The role is the principal once IAM has shown it exists (or, with no
	// root credentials to ask with, as written): a role that is not found
	// is no principal.
	out.Principal, out.RoleTrust = spec.STSIAMRoleARN, trust
	if err := p.writeWebIdentity(ctx, cr, spec.STSIAMRoleARN); err != nil {
		return err
	}
	out.Provisioned = true
	// The Secret is written even when the role lacks permissions or trust,
	// as the role is the administrator's to fix.
	if len(denials) > 0 {
		return &Failure{Type: leashv1.InsufficientCloudCredentials, Reason: ReasonRoleLacksPermissions,
			Message: denialsMessage("role "+spec.STSIAMRoleARN, denials) + "; add them to the role's policies"}
	}
	if untrusted := p.untrustedServiceAccounts(cr, spec.STSIAMRoleARN, trust); len(untrusted) > 0 {
		return &Failure{Type: leashv1.CredentialsProvisionFailure, Reason: ReasonRoleTrustRefuses, Message: strings.Join(untrusted, "; ")}
	}
	return nil
}

// untrustedServiceAccounts say which ServiceAccounts the request lists
// have tokens the role's trust does not admit (for the
// operator's audience), judged by the engine as admission judges each
// pod (workload.NamedRequest): their pods would be refused, and STS
// would refuse them anyway.
func (p *Provisioner) untrustedServiceAccounts(cr *leashv1.CredentialsRequest, role, trust string) []string {
	if trust == "" {
		return nil
	}
	ns := cr.Spec.SecretRef.Namespace
	var out []string
	for i, sa := range cr.Spec.ServiceAccountNames {
		sub := "system:serviceaccount:" + ns + ":" + sa
		by, err := analyze.Admitted(trust, role, sub, map[string]string{"aud": p.audience()})
		if err != nil {
			return []string{fmt.Sprintf("spec.providerSpec.stsIAMRoleARN: the trust policy of role %s cannot be judged (%v); pods are admitted and STS decides", role, err)}
		}
		if len(by) == 0 {
			out = append(out, fmt.Sprintf("spec.serviceAccountNames[%d]: role %s does not trust a token of ServiceAccount %s/%s for audience %q, so its pods are refused; add to the role's trust policy an Allow of sts:AssumeRoleWithWebIdentity with StringEquals <issuer>:sub %q and <issuer>:aud %q, or remove it from the list", i, role, ns, sa, p.audience(), sub, p.audience()))
		}
	}
	return out
}

// writeWebIdentity publishes the web-identity configuration for role in
// the request's Secret: the role, the path of the projected token, and no
// key. An unchanged Secret is not written again.
func (p *Provisioner) writeWebIdentity(ctx context.Context, cr *leashv1.CredentialsRequest, role string) error {
	tokenPath := cr.Spec.CloudTokenPath
	if tokenPath == "" {
		tokenPath = leashv1.DefaultCloudTokenPath
	}
	data := map[string][]byte{SecretKeyCredentials: []byte(credfile.WebIdentity(role, tokenPath))}
	ref := cr.Spec.SecretRef
	cur, err := p.writableSecret(ctx, cr)
	if err != nil {
		return err
	}
	if ownedBy(cur, cr) && sameData(cur.Data, data) {
		return nil
	}
	if err := p.cluster.WriteSecret(ctx, newSecret(cr, data), cur); err != nil {
		return fmt.Errorf("write Secret %s/%s: %w", ref.Namespace, ref.Name, err)
	}
	p.event(cr, "WebIdentityWritten", "wrote the web-identity configuration for role %s into Secret %s/%s", role, ref.Namespace, ref.Name)
	return nil
}

// keyReader is who reads the policies of a Manual Secret's key, of
// principal: the root credentials in their own account, the check role of
// the key's account in another, else the key itself (which a controller's
// key may not be allowed). Never the root credentials in another account,
// where a same-named principal would be judged instead.
func (p *Provisioner) keyReader(ctx context.Context, key *iamclient.Client, principal string) (*judge, error) {
	self := &judge{iam: key, perms: newPermissionCache(0, p.now), who: "the key itself",
		fix: "allow it iam:Get*/iam:List* on itself or iam:SimulatePrincipalPolicy, or configure root credentials"}
	rc, _, err := p.rootClient(ctx)
	if err != nil {
		return self, nil
	}
	j, err := p.judgeFor(ctx, rc, principal)
	var u *unchecked
	if errors.As(err, &u) {
		self.fix = fmt.Sprintf("allow it iam:Get*/iam:List* on itself or iam:SimulatePrincipalPolicy, or configure a check role for account %s (--account-check-role %s=ROLE_ARN), as the root credentials are of account %s",
			u.account, u.account, u.rootAccount)
		return self, nil
	}
	return j, err
}

// stsUnchecked handles a role leash cannot judge: refused, with nothing
// written, or written with a Ready condition that says what was not
// checked, as the administrator chose.
func (p *Provisioner) stsUnchecked(ctx context.Context, cr *leashv1.CredentialsRequest, spec *leashv1.AWSProviderSpec, u *unchecked, out *Outcome) error {
	if p.cfg.AccountChecks.refuses() {
		return &Failure{Type: leashv1.InsufficientCloudCredentials, Reason: ReasonRoleUnchecked,
			Message: "spec.providerSpec.stsIAMRoleARN: role " + u.what() + ". Refused (--unchecked-accounts=refuse): no Secret was written"}
	}
	if err := p.writeWebIdentity(ctx, cr, spec.STSIAMRoleARN); err != nil {
		return err
	}
	out.Provisioned = true
	out.Unchecked = "role " + u.what()
	return nil
}

// roleLacks checks, with the root credentials when there are any, that the
// role exists and lists the requested permissions it lacks, and returns
// its trust policy ("" when the reader may not read it). A role of
// another account is read through that account's check role; without one,
// the error is an *unchecked. A role IAM does not have is a failure, found
// before the Secret is written, so that no pod is told to assume it; any
// other error is returned for a retry. Without working root credentials
// there is nothing to ask IAM with, and the role is taken as written
// (Manual mode needs none).
func (p *Provisioner) roleLacks(ctx context.Context, role string, requested *policy.Document) ([]analyze.Gap, string, error) {
	rc, _, err := p.rootClient(ctx)
	var f *Failure
	if errors.As(err, &f) {
		return nil, "", nil // no root credentials, or none that work
	}
	if err != nil {
		return nil, "", err
	}
	j, err := p.judgeFor(ctx, rc, role)
	if err != nil {
		return nil, "", err
	}
	account := rc.identity.Account
	if a, ok := policy.ParseARN(role); ok {
		account = a.Account
	}
	denials, err := lacks(ctx, j.iam, j.perms, role, requested)
	switch {
	case iamclient.IsNotFound(err):
		return nil, "", &Failure{Type: leashv1.InsufficientCloudCredentials, Reason: ReasonRoleNotFound,
			Message: fmt.Sprintf("spec.providerSpec.stsIAMRoleARN: role %s does not exist in account %s (IAM answered NoSuchEntity to %s); create the role with a trust policy for the cluster's OIDC provider, or correct the ARN", role, account, j.who)}
	case iamclient.IsAccessDenied(err):
		return nil, "", &Failure{Type: leashv1.InsufficientCloudCredentials, Reason: ReasonPermissionsUnknown,
			Message: fmt.Sprintf("Manual mode: %s may neither read role %s nor simulate its policies (AccessDenied), so leash cannot check that it exists and carries the requested permissions; allow %s iam:GetRole, iam:Get*/iam:List* on the role or iam:SimulatePrincipalPolicy", j.who, role, j.who)}
	case err != nil:
		return nil, "", fmt.Errorf("check role %s: %w", role, err)
	}
	a, _ := parseRoleARN(role)
	r, err := j.iam.GetRole(ctx, a.Resource[strings.LastIndex(a.Resource, "/")+1:])
	switch {
	case iamclient.IsAccessDenied(err):
		return denials, "", nil // the trust is not judged; STS decides
	case err != nil:
		return nil, "", fmt.Errorf("read the trust of role %s: %w", role, err)
	}
	return denials, r.Trust, nil
}
