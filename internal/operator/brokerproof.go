package operator

import (
	"context"
	"fmt"
	"strings"

	"leash.dev/leash/analyze"
	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/policy"
)

// brokerProofSession is the session name the engine's proof asks about
// when the broker is a role.
const brokerProofSession = "leash-broker-proof"

// proveBrokerRole shows, before the request is Ready, that the role IAM
// holds now is what Broker mode promises. Unlike STS mode's proof no
// session is made: the operator is not the broker's identity, so a real
// sts:AssumeRole by it is refused whatever the trust says. The engine
// decides instead, over the trust and the policies IAM returns: the
// broker may assume the role and tag the session with the request's
// namespace, and not without that tag or with another namespace's; no one
// else may assume it; and the role is allowed every requested action.
func (p *Provisioner) proveBrokerRole(ctx context.Context, rc *rootClient, cr *leashv1.CredentialsRequest, r mintedUser, requested *policy.Document) error {
	role, err := rc.iam.GetRole(ctx, r.name)
	if err != nil {
		return fmt.Errorf("read the trust of role %s: %w", r.arn, err)
	}
	ns := cr.Spec.SecretRef.Namespace
	if problems := brokerTrustProblems(role.Trust, r.arn, p.cfg.BrokerPrincipal, ns); len(problems) > 0 {
		return &Failure{Type: leashv1.CredentialsProvisionFailure, Reason: ReasonBrokerRoleUnproven,
			Message: fmt.Sprintf("the trust policy IAM holds for role %s is not Broker mode's: %s; leash rewrites it at the next sync, and if this stays, compare it with docs/operator.md's Broker mode", r.arn, strings.Join(problems, "; "))}
	}
	// A cache of no age: the policies were just written, and are read as
	// IAM holds them now.
	denials, err := lacks(ctx, rc.iam, newPermissionCache(0, p.now), r.arn, requested)
	if iamclient.IsAccessDenied(err) {
		return &Failure{Type: leashv1.InsufficientCloudCredentials, Reason: ReasonPermissionsUnknown,
			Message: fmt.Sprintf("Broker mode: the root credentials (%s) may neither read the policies of role %s nor simulate them (AccessDenied), so leash cannot prove the role carries the requested permissions; allow them iam:Get*/iam:List* on the role or iam:SimulatePrincipalPolicy", rc.identity.ARN, r.arn)}
	}
	if err != nil {
		return fmt.Errorf("check role %s: %w", r.arn, err)
	}
	if len(denials) > 0 {
		return &Failure{Type: leashv1.CredentialsProvisionFailure, Reason: ReasonBrokerRoleUnproven,
			Message: denialsMessage("role "+r.arn, denials) + " after leash wrote its policy; a permissions boundary or SCP may deny them: lift it, or remove them from spec.providerSpec.statementEntries"}
	}
	return nil
}

// brokerTrustProblems says, by the engine, what is wrong with trust as the
// trust of a Broker-mode role for namespace ns; none when the broker may
// assume the role with the namespace's tag only, and no one else at all.
func brokerTrustProblems(trust, role, brokerARN, ns string) []string {
	doc, err := policy.ParseString(trust, policy.Trust)
	if err != nil {
		return []string{"it cannot be read (" + err.Error() + ")"}
	}
	ps, err := policy.Compile(policy.Set{ResourcePolicy: &policy.Named{Name: role, Document: doc}, Identity: []policy.Named{callerMayAssume()}})
	if err != nil {
		return []string{"it cannot be judged (" + err.Error() + ")"}
	}
	caller := brokerCaller(brokerARN)
	ask := func(action string, tag *string) policy.Decision {
		req := policy.Request{Principal: caller, Action: action, Resource: role}
		req.Context.AddPrincipalKeys(caller)
		if tag != nil {
			req.Context.Set(brokerNamespaceKey, *tag)
			req.Context.SetList("aws:TagKeys", []string{brokerNamespaceKey[len("aws:RequestTag/"):]})
		}
		return ps.Decide(&req)
	}
	var problems []string
	other := ns + "-other"
	for _, action := range []string{"sts:AssumeRole", "sts:TagSession"} {
		if d := ask(action, &ns); d != policy.Allowed {
			problems = append(problems, fmt.Sprintf("the broker %s may not %s with session tag %s=%s (%s)", brokerARN, action, brokerNamespaceKey, ns, d))
		}
		if d := ask(action, &other); d == policy.Allowed {
			problems = append(problems, fmt.Sprintf("the broker %s may %s with another namespace's session tag (%s=%s)", brokerARN, action, brokerNamespaceKey, other))
		}
		if d := ask(action, nil); d == policy.Allowed {
			problems = append(problems, fmt.Sprintf("the broker %s may %s without session tag %s", brokerARN, action, brokerNamespaceKey))
		}
	}
	// Anyone else: a principal of the role's and of the broker's account
	// (a whole-account or wildcard grant admits it) that is not the broker.
	for _, account := range strangerAccounts(role, brokerARN) {
		by, err := analyze.Admitted(trust, role, account, nil)
		if err != nil {
			return append(problems, "it cannot be judged ("+err.Error()+")")
		}
		if len(by) > 0 {
			problems = append(problems, fmt.Sprintf("a principal of account %s other than the broker may assume the role (%s)", account, strings.Join(by, ", ")))
		}
	}
	return problems
}

// callerMayAssume is the caller's own identity policy as the proof takes
// it: allowing every STS call, so that only the trust decides.
func callerMayAssume() policy.Named {
	doc, _ := policy.ParseString(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"sts:*","Resource":"*"}]}`, policy.Identity) // a fixed document
	return policy.Named{Name: "the broker's own policies", Document: doc}
}

// brokerCaller is the ARN the broker calls STS as: a user's own ARN, or a
// session of a role (assumed-role/NAME/SESSION, the role's path dropped),
// which a trust naming the role's ARN admits.
func brokerCaller(arn string) string {
	a, ok := policy.ParseARN(arn)
	if !ok || !strings.HasPrefix(a.Resource, "role/") {
		return arn
	}
	name := a.Resource[strings.LastIndex(a.Resource, "/")+1:]
	return fmt.Sprintf("arn:%s:sts::%s:assumed-role/%s/%s", a.Partition, a.Account, name, brokerProofSession)
}

// strangerAccounts are the accounts whose other principals the proof asks
// about: the role's and the broker's.
func strangerAccounts(role, brokerARN string) []string {
	var out []string
	for _, arn := range []string{role, brokerARN} {
		if a, ok := policy.ParseARN(arn); ok && a.Account != "" && (len(out) == 0 || out[0] != a.Account) {
			out = append(out, a.Account)
		}
	}
	return out
}
