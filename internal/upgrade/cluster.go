package upgrade

import (
	"context"
	"errors"
	"fmt"
	"strings"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/internal/inputerr"
)

// StatusPrincipal is the principal a cluster's request holds, from the
// status the operator recorded: ErrNew for a request the operator ignores
// (another cloud's), a *Failure for one not provisioned yet. leash check
// upgrade --kubeconfig and the operator's Upgradeable check both read it.
func StatusPrincipal(cr *leashv1.CredentialsRequest) (Principal, error) {
	p := cr.Status.Principal
	if cr.Status.Mode == leashv1.ModeIgnored {
		return Principal{}, ErrNew
	}
	if p == "" {
		return Principal{}, &Failure{Msg: fmt.Sprintf("has no principal in its status (status.principal): the operator has not provisioned it, so there are no current permissions to check; see kubectl describe credentialsrequest -n %s %s, and check again once it is Ready", cr.Namespace, cr.Name)}
	}
	kind, _, ok := iamclient.PrincipalName(p)
	if !ok {
		return Principal{}, &Failure{Msg: fmt.Sprintf("its principal %s is not an IAM user or role whose policies can be read", p)}
	}
	out := Principal{Kind: kind, Name: p}
	if cr.Status.Mode == leashv1.ModePassthrough {
		out.Note = PassthroughNote
	}
	return out, nil
}

// PassthroughNote is the note on a Passthrough request checked in a
// cluster: its credentials are the operator's root ones.
const PassthroughNote = "Passthrough: checked against the operator's root credentials, which it hands out"

// IAMReader reads a principal's policies and ARN from IAM; a principal IAM
// does not know fails its request, with fix (how the request gets one
// again).
func IAMReader(iam *iamclient.Client, fix string) Read {
	return func(ctx context.Context, p Principal) (Held, error) {
		name, arn := p.Name, ""
		if strings.HasPrefix(name, "arn:") {
			_, name, _ = iamclient.PrincipalName(p.Name)
			arn = p.Name
		}
		failed := func(err error) (Held, error) {
			if iamclient.IsNotFound(err) {
				return Held{}, &Failure{Msg: fmt.Sprintf("IAM has no %s %s, the principal the request holds now (deleted?): %s", p.Kind, name, fix)}
			}
			if errors.As(err, new(*iamclient.PolicyParseError)) {
				return Held{}, &Failure{Msg: fmt.Sprintf("%s %s: %v", p.Kind, name, err)}
			}
			return Held{}, &inputerr.Error{Msg: fmt.Sprintf("reading the policies of %s %s from IAM: %v", p.Kind, name, err)}
		}
		pp, err := iam.LoadPolicies(ctx, p.Kind, name)
		if err != nil {
			return failed(err)
		}
		switch {
		case arn != "":
		case p.Kind == "user":
			u, err := iam.GetUser(ctx, name)
			if err != nil {
				return failed(err)
			}
			arn = u.ARN
		default:
			r, err := iam.GetRole(ctx, name)
			if err != nil {
				return failed(err)
			}
			arn = r.ARN
		}
		return Held{ARN: arn, ParsedPolicies: pp}, nil
	}
}
