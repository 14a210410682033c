package operator

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"leash.dev/leash/analyze"
	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/internal/inputerr"
	"leash.dev/leash/policy"
)

// What leash does with a role of an account it has no check role for.
const (
	// UncheckedReport writes the Secret and says in the status that the
	// role was not checked. A role_arn grants nothing by itself: the role's
	// trust policy, in its own account, decides who may assume it.
	UncheckedReport = "report"
	// UncheckedRefuse writes nothing and fails the request.
	UncheckedRefuse = "refuse"
)

// checkSessionName and checkSessionDuration are what leash asks STS for
// when it assumes a check role: a fixed name, so that the account's
// CloudTrail shows leash's reads as such, and STS's shortest session.
const (
	checkSessionName     = "leash-check"
	checkSessionDuration = 15 * time.Minute
	// checkSessionMargin is how long before its expiry a session is
	// replaced, so that no check runs out of time half way.
	checkSessionMargin = 5 * time.Minute
)

// AccountChecks says how roles and keys of accounts other than the root
// credentials' are judged: IAM reads a principal's policies only in its own
// account, so a role of another account is read through a role leash
// assumes there, never through a same-named role of the root's account.
type AccountChecks struct {
	// Roles maps an account ID to the ARN of a role in that account that
	// the root credentials may assume and that may read (or simulate) the
	// account's roles and users.
	Roles map[string]string
	// Unchecked is UncheckedReport (empty means it) or UncheckedRefuse.
	Unchecked string
}

// ParseAccountCheckRole reads a --account-check-role value,
// ACCOUNT=ROLE_ARN, naming flag in its errors.
func ParseAccountCheckRole(flag, v string) (account, role string, err error) {
	account, role, ok := strings.Cut(v, "=")
	if !ok {
		return "", "", fmt.Errorf("%s %q: give ACCOUNT=ROLE_ARN, such as 111122223333=arn:aws:iam::111122223333:role/leash-check", flag, v)
	}
	account, role = strings.TrimSpace(account), strings.TrimSpace(role)
	if !policy.IsAccountID(account) {
		return "", "", fmt.Errorf("%s %q: account %q is not an AWS account ID (12 digits, such as 111122223333)", flag, v, account)
	}
	a, err := parseRoleARN(role)
	if err != nil {
		return "", "", fmt.Errorf("%s %q: %v", flag, v, err)
	}
	if a.Account != account {
		return "", "", fmt.Errorf("%s %q: the check role is in account %s, not %s; IAM reads an account's roles only from within it, so give a role of account %s", flag, v, a.Account, account, account)
	}
	return account, role, nil
}

func (a *AccountChecks) validate() error {
	switch a.Unchecked {
	case "", UncheckedReport, UncheckedRefuse:
	default:
		return fmt.Errorf("--unchecked-accounts %q (or the ConfigMap's uncheckedAccounts): use report or refuse", a.Unchecked)
	}
	for account, role := range a.Roles {
		if _, _, err := ParseAccountCheckRole("--account-check-role", account+"="+role); err != nil {
			return err
		}
	}
	return nil
}

func (a *AccountChecks) refuses() bool { return a.Unchecked == UncheckedRefuse }

// parseRoleARN checks an IAM role ARN's form: a known partition, the iam
// service, no region, a 12-digit account, role/NAME.
func parseRoleARN(s string) (policy.ARN, error) {
	const form = "arn:PARTITION:iam::ACCOUNT:role/NAME, such as arn:aws:iam::111122223333:role/app"
	a, ok := policy.ParseARN(s)
	switch {
	case !ok || a.Service != "iam" || !strings.HasPrefix(a.Resource, "role/") || strings.HasSuffix(a.Resource, "/"):
		return a, fmt.Errorf("%q is not an IAM role ARN (%s)", s, form)
	case !analyze.KnownPartition(a.Partition):
		return a, fmt.Errorf("%q has partition %q, not one of AWS's (%s)", s, a.Partition, strings.Join(analyze.Partitions(), ", "))
	case a.Region != "":
		return a, fmt.Errorf("%q names region %q, and IAM ARNs name none (%s)", s, a.Region, form)
	case !policy.IsAccountID(a.Account):
		return a, fmt.Errorf("%q has account %q, and an AWS account ID is 12 digits (%s)", s, a.Account, form)
	}
	return a, nil
}

// checkRoleARN refuses, before any IAM call, a stsIAMRoleARN that is not a
// role ARN, so that no Secret names it.
func checkRoleARN(spec *leashv1.AWSProviderSpec) error {
	if _, err := parseRoleARN(spec.STSIAMRoleARN); err != nil {
		return &inputerr.Error{Field: "spec.providerSpec.stsIAMRoleARN", Msg: err.Error() + "; correct the ARN"}
	}
	return nil
}

// judge is who reads a principal's policies: the root credentials in their
// own account, the account's check role in another.
type judge struct {
	iam   *iamclient.Client
	perms *permissionCache
	// who names the reader in messages.
	who string
	// fix says how to let it read, for a condition.
	fix string
}

// unchecked says why a principal could not be judged, for the condition.
type unchecked struct {
	principal, account, partition string
	rootAccount, rootPartition    string
}

// what says what leash checked of the principal and what it did not.
func (u *unchecked) what() string {
	where := fmt.Sprintf("is in account %s, not the root credentials' account %s, and no check role is configured for account %s", u.account, u.rootAccount, u.account)
	fix := fmt.Sprintf("to have it checked, give the operator (or leash apply) --account-check-role %s=arn:%s:iam::%s:role/NAME (ConfigMap key accountCheckRoles), a role of that account that the root credentials (%s) may assume and that may read its roles (iam:GetRole, iam:Get*/iam:List* on roles, or iam:SimulatePrincipalPolicy)",
		u.account, u.partition, u.account, u.rootPartition)
	if u.partition != u.rootPartition {
		where = fmt.Sprintf("is in partition %s, and the root credentials are in %s, where no role of %s can be assumed", u.partition, u.rootPartition, u.partition)
		fix = fmt.Sprintf("to have it checked, run leash with root credentials of partition %s", u.partition)
	}
	return fmt.Sprintf("%s %s: leash checked only the ARN's form, not that the role exists, carries the requested permissions or trusts the cluster; %s", u.principal, where, fix)
}

func (u *unchecked) Error() string { return u.what() }

// inRootAccount says whether arn is of the root credentials' partition and
// account: the only account leash writes in.
func inRootAccount(rc *rootClient, arn string) bool {
	a, ok := policy.ParseARN(arn)
	root, _ := policy.ParseARN(rc.identity.ARN)
	return ok && a.Partition == root.Partition && a.Account == rc.identity.Account
}

// judgeFor finds who may read principal's policies: the root client when
// the principal is of the root's account, else a session of that account's
// check role. A principal of an account without a check role (or another
// partition) is unchecked: never judged by a same-named principal of the
// root's account.
func (p *Provisioner) judgeFor(ctx context.Context, rc *rootClient, principal string) (*judge, error) {
	a, ok := policy.ParseARN(principal)
	root, _ := policy.ParseARN(rc.identity.ARN)
	if !ok {
		return nil, fmt.Errorf("%s is not an ARN", principal)
	}
	if inRootAccount(rc, principal) {
		return &judge{iam: rc.iam, perms: rc.perms, who: "the root credentials (" + rc.identity.ARN + ")",
			fix: "allow the root credentials iam:Get*/iam:List* on it or iam:SimulatePrincipalPolicy"}, nil
	}
	u := &unchecked{principal: principal, account: a.Account, partition: a.Partition, rootAccount: rc.identity.Account, rootPartition: root.Partition}
	role, ok := p.cfg.AccountChecks.Roles[a.Account]
	if !ok || a.Partition != root.Partition || !strings.HasPrefix(role, "arn:"+a.Partition+":") {
		return nil, u
	}
	s, err := rc.accounts.session(ctx, p, rc, role)
	if iamclient.IsAccessDenied(err) {
		return nil, &Failure{Type: leashv1.InsufficientCloudCredentials, Reason: ReasonCheckRoleUnusable,
			Message: fmt.Sprintf("the root credentials (%s) may not assume %s, the check role of account %s (AccessDenied), so leash cannot check %s; let that role's trust policy allow %s sts:AssumeRole, and allow the root credentials sts:AssumeRole on it",
				rc.identity.ARN, role, a.Account, principal, rc.identity.ARN)}
	}
	if err != nil {
		return nil, err
	}
	return &judge{iam: s.iam, perms: s.perms, who: "check role " + role + " of account " + a.Account,
		fix: "allow the check role iam:Get*/iam:List* on it or iam:SimulatePrincipalPolicy"}, nil
}

// accountSessions keeps a session of each account's check role while it
// has time left, with the permissions it read: one AssumeRole per account
// per ten minutes, not one per request.
type accountSessions struct {
	mu sync.Mutex
	m  map[string]*checkSession // by check role ARN
}

type checkSession struct {
	iam     *iamclient.Client
	perms   *permissionCache
	expires time.Time
}

// session returns a live session of role, assuming it with the root
// credentials when there is none or it expires soon.
func (as *accountSessions) session(ctx context.Context, p *Provisioner, rc *rootClient, role string) (*checkSession, error) {
	as.mu.Lock()
	defer as.mu.Unlock()
	if s := as.m[role]; s != nil && p.now().Add(checkSessionMargin).Before(s.expires) {
		return s, nil
	}
	got, err := rc.iam.AssumeRole(ctx, role, checkSessionName, checkSessionDuration)
	if err != nil {
		return nil, err
	}
	s := &checkSession{iam: p.newIAM(got.Key), perms: newPermissionCache(time.Minute, p.now), expires: got.Expires}
	if as.m == nil {
		as.m = map[string]*checkSession{}
	}
	as.m[role] = s
	return s, nil
}
