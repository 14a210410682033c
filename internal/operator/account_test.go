package operator

import (
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	corev1 "k8s.io/api/core/v1"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/internal/revoke"
)

// otherAccount is account B, which leash local holds beside the root
// credentials' account A.
const otherAccount = "111122223333"

// twoAccounts is an env whose root credentials are in account A, with
// account B beside it, arranged so that judging a principal of B by the
// same-named principal of A gives the wrong answer:
//   - role app-role in A may do every ec2 action; in B, only
//     ec2:DescribeInstances;
//   - role only-in-a exists in A alone;
//   - role leash-check in B trusts A and may read B's IAM;
//   - role locked in B trusts only B;
//   - user app in A may do every ec2 action; in B, only
//     ec2:DescribeInstances, and may not read its own policies.
type twoAccounts struct {
	*env
	b *iam.Client // B's administrator
	// checkRole is B's check role; lockedRole is one A may not assume.
	checkRole, lockedRole string
	// bKey is user app's key in B.
	bKey iamclient.AccessKey
}

func newTwoAccounts(t *testing.T) *twoAccounts {
	t.Helper()
	e := newEnv(t, envOptions{cfg: Config{Mode: leashv1.ModeManual}, otherAccounts: []string{otherAccount}})
	bAdmin, err := iamclient.KeyFromFile(e.local.AccountAdminCredentialsPath(otherAccount))
	if err != nil {
		t.Fatal(err)
	}
	b := iam.New(iam.Options{Region: "us-east-1", BaseEndpoint: aws.String(e.local.URL), Credentials: bAdmin.Provider()})
	a := e.sdk(t)
	trust := func(account string) string {
		return `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::` + account + `:root"},"Action":"sts:AssumeRole"}]}`
	}
	allowDoc := func(actions string) string {
		return `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":` + actions + `,"Resource":"*"}]}`
	}
	role := func(c *iam.Client, name, trust, actions string) {
		t.Helper()
		if _, err := c.CreateRole(e.ctx, &iam.CreateRoleInput{RoleName: aws.String(name), AssumeRolePolicyDocument: aws.String(trust)}); err != nil {
			t.Fatal(err)
		}
		if actions == "" {
			return
		}
		if _, err := c.PutRolePolicy(e.ctx, &iam.PutRolePolicyInput{RoleName: aws.String(name), PolicyName: aws.String("p"), PolicyDocument: aws.String(allowDoc(actions))}); err != nil {
			t.Fatal(err)
		}
	}
	role(a, "app-role", trust(e.account), `"ec2:*"`)
	role(b, "app-role", trust(otherAccount), `"ec2:DescribeInstances"`)
	role(a, "only-in-a", trust(e.account), `"ec2:*"`)
	role(b, "leash-check", trust(e.account), `["iam:Get*","iam:List*"]`)
	role(b, "locked", trust(otherAccount), `["iam:Get*","iam:List*"]`)
	user := func(c *iam.Client, actions string) iamclient.AccessKey {
		t.Helper()
		if _, err := c.CreateUser(e.ctx, &iam.CreateUserInput{UserName: aws.String("app")}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.PutUserPolicy(e.ctx, &iam.PutUserPolicyInput{UserName: aws.String("app"), PolicyName: aws.String("p"), PolicyDocument: aws.String(allowDoc(actions))}); err != nil {
			t.Fatal(err)
		}
		k, err := c.CreateAccessKey(e.ctx, &iam.CreateAccessKeyInput{UserName: aws.String("app")})
		if err != nil {
			t.Fatal(err)
		}
		return iamclient.AccessKey{ID: aws.ToString(k.AccessKey.AccessKeyId), Secret: iamclient.NewSecret(aws.ToString(k.AccessKey.SecretAccessKey))}
	}
	user(a, `"ec2:*"`)
	return &twoAccounts{env: e, b: b, bKey: user(b, `"ec2:DescribeInstances"`),
		checkRole:  "arn:aws:iam::" + otherAccount + ":role/leash-check",
		lockedRole: "arn:aws:iam::" + otherAccount + ":role/locked"}
}

// arnRequest asks for actions with the role arn.
func arnRequest(t *testing.T, name, arn string, actions ...string) *leashv1.CredentialsRequest {
	cr := mintRequest(t, name, allow("*", actions...))
	setSpec(t, cr, func(s *leashv1.AWSProviderSpec) { s.STSIAMRoleARN = arn })
	return cr
}

// TestRoleOfAnotherAccount pins that a role of an account other than the
// root credentials' is judged in its own account, through the check role
// configured for it, and otherwise said to be unchecked: never by the
// root's same-named role. IAM reads a role only in its own account, and
// another account's role is reached by assuming a role there
// (https://docs.aws.amazon.com/IAM/latest/UserGuide/tutorial_cross-account-with-roles.html).
func TestRoleOfAnotherAccount(t *testing.T) {
	w := newTwoAccounts(t)
	appRole := "arn:aws:iam::" + otherAccount + ":role/app-role"
	checked := w.provisioner(t, Config{Mode: leashv1.ModeManual, AccountChecks: AccountChecks{Roles: map[string]string{otherAccount: w.checkRole}}})
	refusing := w.provisioner(t, Config{Mode: leashv1.ModeManual, AccountChecks: AccountChecks{Unchecked: UncheckedRefuse}})
	reporting := w.provisioner(t, Config{Mode: leashv1.ModeManual}) // report is the default
	locked := w.provisioner(t, Config{Mode: leashv1.ModeManual, AccountChecks: AccountChecks{Roles: map[string]string{otherAccount: w.lockedRole}}})

	tests := []struct {
		name string
		p    *Provisioner
		cr   *leashv1.CredentialsRequest
		// reason is the failure's, or the Ready condition's when ready.
		reason    string
		ready     bool
		secret    bool
		says      []string
		doesntSay []string
	}{
		{"with a check role, a role of B lacking a permission is judged by B's role, not A's same-named one",
			checked, arnRequest(t, "lacks", appRole, "ec2:DescribeInstances", "ec2:TerminateInstances"),
			"RoleLacksPermissions", false, true,
			[]string{"role " + appRole + " lacks 1 requested permission(s): ec2:TerminateInstances"}, nil},
		{"with a check role, a role of B with the permissions is Ready",
			checked, arnRequest(t, "covered", appRole, "ec2:DescribeInstances"),
			"CredentialsReady", true, true, []string{"configures web identity for " + appRole}, []string{"not checked"}},
		{"with a check role, a role B does not have is RoleNotFound in B though A has one of that name",
			checked, arnRequest(t, "missing", "arn:aws:iam::"+otherAccount+":role/only-in-a", "ec2:DescribeInstances"),
			"RoleNotFound", false, false,
			[]string{"does not exist in account " + otherAccount, "check role " + w.checkRole}, nil},
		{"a check role the root may not assume is CheckRoleUnusable, and nothing is written",
			locked, arnRequest(t, "locked", appRole, "ec2:DescribeInstances"),
			ReasonCheckRoleUnusable, false, false,
			[]string{"may not assume " + w.lockedRole, "trust policy allow"}, nil},
		{"without a check role (report), the Secret is written and Ready says what was not checked",
			reporting, arnRequest(t, "reported", appRole, "ec2:TerminateInstances"),
			ReasonRoleUnchecked, true, true,
			[]string{"not checked: role " + appRole + " is in account " + otherAccount,
				"checked only the ARN's form, not that the role exists, carries the requested permissions or trusts the cluster",
				"--account-check-role " + otherAccount + "=arn:aws:iam::" + otherAccount + ":role/NAME", "accountCheckRoles"},
			[]string{"with every requested permission", "lacks"}},
		{"without a check role (refuse), nothing is written and the condition says why and how to fix it",
			refusing, arnRequest(t, "refused", appRole, "ec2:DescribeInstances"),
			ReasonRoleUnchecked, false, false,
			[]string{"spec.providerSpec.stsIAMRoleARN: role " + appRole, "--unchecked-accounts=refuse", "no Secret was written", "--account-check-role"}, nil},
		{"a role of another partition with the root's account number is unchecked, not judged by the root's role",
			checked, arnRequest(t, "china", "arn:aws-cn:iam::"+w.account+":role/app-role", "ec2:TerminateInstances"),
			ReasonRoleUnchecked, true, true,
			[]string{"is in partition aws-cn, and the root credentials are in aws", "root credentials of partition aws-cn"}, nil},
		{"a role of GovCloud is unchecked too, and refused when the administrator says so",
			refusing, arnRequest(t, "govcloud", "arn:aws-us-gov:iam::"+otherAccount+":role/app-role", "ec2:DescribeInstances"),
			ReasonRoleUnchecked, false, false, []string{"partition aws-us-gov", "no Secret was written"}, nil},
		{"a role of the root's own account is judged as before",
			reporting, arnRequest(t, "own", "arn:aws:iam::"+w.account+":role/app-role", "ec2:TerminateInstances"),
			"CredentialsReady", true, true, nil, []string{"not checked"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := tt.cr.Status.DeepCopy()
			out, err := w.sync(t, tt.p, tt.cr)
			tt.p.warnIfTurnedFailing(tt.cr, before)
			if err != nil {
				t.Fatalf("sync: %v; want a condition", err)
			}
			ready := findCondition(&tt.cr.Status, leashv1.Ready)
			msg := ready.Message
			if tt.ready {
				if out.Failure != nil || ready.Status != corev1.ConditionTrue || ready.Reason != tt.reason {
					t.Fatalf("failure %+v, Ready %+v; want Ready True with reason %s", out.Failure, ready, tt.reason)
				}
			} else {
				if out.Failure == nil || out.Failure.Reason != tt.reason || ready.Status != corev1.ConditionFalse {
					t.Fatalf("failure %+v; want reason %s", out.Failure, tt.reason)
				}
				if warned := w.events.reasons(corev1.EventTypeWarning); !containsReason(warned, tt.reason) {
					t.Errorf("Warning events %v; want one with reason %s", warned, tt.reason)
				}
			}
			for _, s := range tt.says {
				if !strings.Contains(msg, s) {
					t.Errorf("Ready message %q does not say %q", msg, s)
				}
			}
			for _, s := range tt.doesntSay {
				if strings.Contains(msg, s) {
					t.Errorf("Ready message %q says %q", msg, s)
				}
			}
			if got := w.secret(t, tt.cr) != nil; got != tt.secret {
				t.Errorf("Secret written: %v; want %v", got, tt.secret)
			}
		})
	}
}

// TestManualKeyOfAnotherAccount pins that a Manual Secret's key of another
// account is judged with the account's check role, or with the key itself,
// never with the root credentials, which would read the root account's
// same-named user.
func TestManualKeyOfAnotherAccount(t *testing.T) {
	w := newTwoAccounts(t)
	userB := "arn:aws:iam::" + otherAccount + ":user/app"
	request := func(t *testing.T, name string) *leashv1.CredentialsRequest {
		cr := mintRequest(t, name, allow("*", "ec2:DescribeInstances", "ec2:TerminateInstances"))
		withMode(cr, leashv1.ModeManual)
		if err := w.cluster.WriteSecret(w.ctx, newSecret(cr, staticKeyData(w.bKey)), nil); err != nil {
			t.Fatal(err)
		}
		return cr
	}
	tests := []struct {
		name   string
		cfg    Config
		reason string
		says   []string
	}{
		{"with a check role, the key's user is judged in its account: it lacks what A's same-named user has",
			Config{Mode: leashv1.ModeManual, AccountChecks: AccountChecks{Roles: map[string]string{otherAccount: w.checkRole}}},
			"MissingPermissions", []string{userB + " (the key in Secret apps/", "ec2:TerminateInstances"}},
		{"without a check role, the key reads its own policies, and one that may not says to configure a check role",
			Config{Mode: leashv1.ModeManual},
			"PermissionsUnknown", []string{"the key itself cannot check the permissions of " + userB,
				"--account-check-role " + otherAccount + "=ROLE_ARN", "the root credentials are of account " + w.account}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cr := request(t, "manual"+string(rune('a'+i)))
			out, err := w.sync(t, w.provisioner(t, tt.cfg), cr)
			if err != nil {
				t.Fatalf("sync: %v; want a condition", err)
			}
			if out.Failure == nil || out.Failure.Reason != tt.reason || out.Principal != userB {
				t.Fatalf("failure %+v, principal %s; want %s about %s", out.Failure, out.Principal, tt.reason, userB)
			}
			for _, s := range tt.says {
				if !strings.Contains(out.Failure.Message, s) {
					t.Errorf("message %q does not say %q", out.Failure.Message, s)
				}
			}
		})
	}
}

// TestRoleARNBadInput pins that a stsIAMRoleARN leash could misjudge is
// refused before any IAM call: a condition naming the field and the fix, a
// Warning Event, no Secret. AWS account IDs are 12 digits
// (https://docs.aws.amazon.com/accounts/latest/reference/manage-acct-identifiers.html).
func TestRoleARNBadInput(t *testing.T) {
	e := newEnv(t, envOptions{cfg: Config{Mode: leashv1.ModeManual}})
	tests := []struct{ name, arn, says string }{
		{"an account ID of five digits", "arn:aws:iam::12345:role/x", `has account "12345", and an AWS account ID is 12 digits`},
		{"an account ID of letters", "arn:aws:iam::abcdefghijkl:role/x", `has account "abcdefghijkl"`},
		{"an unknown partition", "arn:aws-mars:iam::111122223333:role/x", `has partition "aws-mars"`},
		{"a user, not a role", "arn:aws:iam::111122223333:user/x", "is not an IAM role ARN"},
		{"a region in an IAM ARN", "arn:aws:iam:us-east-1:111122223333:role/x", `names region "us-east-1"`},
		{"no role name", "arn:aws:iam::111122223333:role/", "is not an IAM role ARN"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cr := arnRequest(t, "bad"+string(rune('a'+i)), tt.arn, "ec2:DescribeInstances")
			before := cr.Status.DeepCopy()
			out, err := e.sync(t, e.p, cr)
			e.p.warnIfTurnedFailing(cr, before)
			if err != nil {
				t.Fatalf("sync: %v; want a condition", err)
			}
			f := out.Failure
			if f == nil || f.Reason != "InvalidRequest" || !strings.Contains(f.Message, "spec.providerSpec.stsIAMRoleARN") ||
				!strings.Contains(f.Message, tt.says) || !strings.Contains(f.Message, "correct the ARN") {
				t.Fatalf("failure %+v; want InvalidRequest naming spec.providerSpec.stsIAMRoleARN, saying %q and the fix", f, tt.says)
			}
			if w := e.events.reasons(corev1.EventTypeWarning); !containsReason(w, "InvalidRequest") {
				t.Errorf("Warning events %v; want InvalidRequest", w)
			}
			if out.Provisioned || e.secret(t, cr) != nil {
				t.Errorf("a Secret was written for a bad ARN")
			}
		})
	}
	t.Run("roles of aws-cn and aws-us-gov are well formed", func(t *testing.T) {
		for _, arn := range []string{"arn:aws-cn:iam::111122223333:role/x", "arn:aws-us-gov:iam::111122223333:role/path/x"} {
			if _, err := parseRoleARN(arn); err != nil {
				t.Errorf("%s: %v", arn, err)
			}
		}
	})
}

// TestAccountCheckRoleValue pins the errors of a bad --account-check-role
// or --unchecked-accounts: each names the flag and the form to give.
func TestAccountCheckRoleValue(t *testing.T) {
	tests := []struct {
		name  string
		value string
		says  string
	}{
		{"no equals sign", "arn:aws:iam::111122223333:role/c", "give ACCOUNT=ROLE_ARN"},
		{"an account of eleven digits", "11112222333=arn:aws:iam::111122223333:role/c", `account "11112222333" is not an AWS account ID`},
		{"a check role that is not a role", "111122223333=arn:aws:iam::111122223333:user/c", "is not an IAM role ARN"},
		{"a check role in another account than the one it checks", "111122223333=arn:aws:iam::303373033373:role/c", "the check role is in account 303373033373, not 111122223333"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := ParseAccountCheckRole("--account-check-role", tt.value)
			if err == nil || !strings.Contains(err.Error(), "--account-check-role") || !strings.Contains(err.Error(), tt.says) {
				t.Fatalf("error %v; want one naming --account-check-role and saying %q", err, tt.says)
			}
		})
	}
	t.Run("an unknown unchecked-accounts choice", func(t *testing.T) {
		cfg := Config{Mode: leashv1.ModeManual, ClusterName: "unit", AccountChecks: AccountChecks{Unchecked: "ignore"}}
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "--unchecked-accounts") || !strings.Contains(err.Error(), "report or refuse") {
			t.Fatalf("error %v; want one naming --unchecked-accounts and its choices", err)
		}
	})
}

func containsReason(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestRevokeRoleOfAnotherAccount pins that leash.dev/revoke on a role of
// another account writes nothing: not the session deny on the root
// account's role of the same name, which would cut off that role's
// sessions instead.
func TestRevokeRoleOfAnotherAccount(t *testing.T) {
	w := newTwoAccounts(t)
	p := w.provisioner(t, Config{Mode: leashv1.ModeManual, AccountChecks: AccountChecks{Roles: map[string]string{otherAccount: w.checkRole}}})
	cr := arnRequest(t, "revoked", "arn:aws:iam::"+otherAccount+":role/app-role", "ec2:DescribeInstances")
	annotateRevoke(cr, w.clock.Now().UTC().Format(time.RFC3339))
	out, err := w.sync(t, p, cr)
	if err != nil {
		t.Fatalf("sync: %v; want a condition", err)
	}
	if f := out.Failure; f == nil || f.Reason != ReasonRevokeOtherAccount || !strings.Contains(f.Message, "leash revoke --role arn:aws:iam::"+otherAccount+":role/app-role") {
		t.Fatalf("failure %+v; want %s naming leash revoke --role", f, ReasonRevokeOtherAccount)
	}
	if _, err := w.admin.RolePolicy(w.ctx, "app-role", revoke.PolicyName); !iamclient.IsNotFound(err) {
		t.Errorf("the root account's app-role: %s read %v; want none written", revoke.PolicyName, err)
	}
}
