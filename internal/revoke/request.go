package revoke

import (
	"fmt"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/iamclient"
)

// RequestPrincipal is the principal whose credentials a CredentialsRequest
// handed out, as its status records it: the minted IAM user (Mint, or a
// Manual request's key), or the role its web-identity sessions assume.
// A Passthrough request hands out the operator's root credentials:
// revoking those would take every Passthrough request's credentials, and
// the operator's own, so it is refused with what to do instead.
func RequestPrincipal(cr *leashv1.CredentialsRequest) (Kind, string, error) {
	ref := cr.Namespace + "/" + cr.Name
	p := cr.Status.Principal
	if cr.Status.Mode == leashv1.ModePassthrough {
		return "", "", &Refusal{Msg: fmt.Sprintf("--request %s passes through the operator's root credentials (%s): revoking them ends every Passthrough request's access and the operator's own. Revoke them deliberately with --user or --role, then give the operator new root credentials", ref, p)}
	}
	if p == "" {
		return "", "", &Refusal{Msg: fmt.Sprintf("--request %s has no principal in its status (status.principal): the operator has not provisioned it, so there is nothing to revoke. Check it with kubectl describe credentialsrequest -n %s %s", ref, cr.Namespace, cr.Name)}
	}
	kind, _, ok := iamclient.PrincipalName(p)
	if !ok {
		return "", "", &Refusal{Msg: fmt.Sprintf("--request %s: its principal %s is not an IAM user or role; revoke it with --user or --role", ref, p)}
	}
	return Kind(kind), p, nil
}
