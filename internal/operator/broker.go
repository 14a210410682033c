package operator

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/broker"
	"leash.dev/leash/internal/inputerr"
	"leash.dev/leash/policy"
)

// brokerNamespaceKey is the condition key the made role's trust pins: the
// session tag the broker sets to the pod's namespace, as the caller passes
// it (aws:RequestTag), so that a session of the role is for pods of the
// request's namespace only.
const brokerNamespaceKey = "aws:RequestTag/" + broker.TagNamespace

// brokerRole makes the request's role as stsRole makes it (the same name,
// the same crash-safe create with ownership tags, the same adopt, policy,
// sweep and removal), except that its trust admits leash's credential
// broker alone, for sessions tagged with the request's namespace. No
// Secret is written: pods get sessions from the broker. The operator is
// not the broker's identity and cannot assume the role to prove it, so
// the proof is the engine's (proveBrokerRole).
func (p *Provisioner) brokerRole(ctx context.Context, cr *leashv1.CredentialsRequest, spec *leashv1.AWSProviderSpec, out *Outcome) error {
	if p.cfg.BrokerPrincipal == "" {
		return &Failure{Type: leashv1.CredentialsProvisionFailure, Reason: ReasonBrokerPrincipalMissing,
			Message: "Broker mode: leash makes a role that only its credential broker may assume, and was started without the broker's identity; start the operator with --broker-principal ARN (the IAM user or role the broker runs as), or annotate the request " + AnnotationMode + ": STS"}
	}
	_, requested, err := requestedPolicy(spec)
	if err != nil {
		return err
	}
	rc, _, err := p.rootClient(ctx)
	if err != nil {
		return err
	}
	r := p.madeRoleFor(cr, rc.identity)
	out.Granted = grantedActions(spec)
	trust, want, err := brokerTrust(p.cfg.BrokerPrincipal, cr.Spec.SecretRef.Namespace)
	if err != nil {
		return err
	}
	plan, err := planPolicy(spec, r)
	if err != nil {
		return err // nothing created yet
	}
	if err := p.ensureMadeRole(ctx, rc, cr, r, plan, madeRoleSpec{trust: trust, want: want,
		trustedBy: "the credential broker " + p.cfg.BrokerPrincipal + " for namespace " + cr.Spec.SecretRef.Namespace}, out); err != nil {
		return err
	}
	if err := p.proveBrokerRole(ctx, rc, cr, r, requested); err != nil {
		return err
	}
	out.Provisioned = true
	return nil
}

// brokerTrust is the made role's trust policy in Broker mode: one
// statement allowing the broker's principal sts:AssumeRole and
// sts:TagSession, only when the session's kubernetes-namespace tag is ns.
// IAM requires sts:TagSession of a caller that passes session tags, and
// aws:RequestTag is the tag as passed, so a broker asked for a pod of
// another namespace cannot get this role's session:
// https://docs.aws.amazon.com/IAM/latest/UserGuide/id_session-tags.html
func brokerTrust(principal, ns string) (string, *policy.Document, error) {
	doc := map[string]any{
		"Version": policy.Version2012,
		"Statement": []any{map[string]any{
			"Effect":    "Allow",
			"Principal": map[string]any{"AWS": principal},
			"Action":    []string{"sts:AssumeRole", "sts:TagSession"},
			"Condition": map[string]any{"StringEquals": map[string]any{brokerNamespaceKey: ns}},
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

// checkBrokerRequest refuses, before any IAM call, a Broker-mode request
// that could not mean what its author meant: a role of its own (leash makes
// the role the broker serves), or no ServiceAccounts, whose pods the broker
// serves the role's sessions to.
func checkBrokerRequest(cr *leashv1.CredentialsRequest, spec *leashv1.AWSProviderSpec) error {
	if spec.STSIAMRoleARN != "" {
		return &inputerr.Error{Field: "spec.providerSpec.stsIAMRoleARN",
			Msg: fmt.Sprintf("is honoured in Manual and STS mode only, and in Broker mode leash makes the role its broker serves; to use role %s, annotate the request %s: Manual, else remove stsIAMRoleARN",
				spec.STSIAMRoleARN, AnnotationMode)}
	}
	if len(cr.Spec.ServiceAccountNames) == 0 {
		return &inputerr.Error{Field: "spec.serviceAccountNames",
			Msg: "is empty, and in Broker mode the credential broker serves the role's sessions to pods of the ServiceAccounts listed there only; list them (in spec.secretRef.namespace), e.g. serviceAccountNames: [cloud-controller-manager]"}
	}
	return checkRoleRequest(cr) // each name as STS mode checks it
}

// validateBrokerPrincipal checks --broker-principal at start: empty, or
// the ARN of one IAM user or role, which is what a trust policy's AWS
// principal names (no wildcards).
func validateBrokerPrincipal(arn string) error {
	if arn == "" {
		return nil
	}
	a, ok := policy.ParseARN(arn)
	if !ok || a.Service != "iam" || a.Account == "" || strings.ContainsAny(arn, "*? ") ||
		!(strings.HasPrefix(a.Resource, "user/") || strings.HasPrefix(a.Resource, "role/")) {
		return fmt.Errorf("--broker-principal %q: give the ARN of the IAM user or role leash's credential broker runs as, such as arn:aws:iam::111122223333:role/leash-broker", arn)
	}
	return nil
}
