package e2e

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/apiserver"
	"leash.dev/leash/internal/operator"
	"leash.dev/leash/policy"
)

// The ceilings of TestOperatorCeilingChanges. readers may read any user
// but list none; leashOnly may read only the users under /leash/; listers
// may read and list any.
const (
	readersCeiling   = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["iam:GetUser","sts:GetCallerIdentity"],"Resource":"*"}]}`
	leashOnlyCeiling = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"iam:GetUser","Resource":"arn:aws:iam::*:user/leash/*"},{"Effect":"Allow","Action":"sts:GetCallerIdentity","Resource":"*"}]}`
	listersCeiling   = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["iam:GetUser","iam:ListUsers","sts:GetCallerIdentity"],"Resource":"*"}]}`
)

// TestOperatorCeilingChanges changes the ceiling of a running `leash
// operator` process, with `leash local` as a process and a real API
// server: added through the --ceiling file to a cluster with minted users
// (one of them above it), narrowed and widened through the ConfigMap, an
// invalid one refused, then removed from the ConfigMap (the file's applies
// again) and from the file. After each change, within one sync (the watch
// reads the sources every 2s), every minted user's boundary is the ceiling
// policy and its default version is the new ceiling; the keys already in
// the Secrets are denied what the ceiling removed and allowed again what
// it gave back; requests above it report AboveCeiling.
func TestOperatorCeilingChanges(t *testing.T) {
	ctx := context.Background()
	api := apiserver.Start(t, apiserver.Options{Scheme: operator.Scheme(), CRDDirs: []string{filepath.Join("..", "..", "deploy", "crd")}})
	local := startLocal(t, t.TempDir())
	id, secret := local.adminKey(t)
	cl := &cluster{api: api, c: api.Client, url: local.url, admin: local.iam(id, secret)}
	cl.namespace(t, "apps")
	cl.namespace(t, "leash-system")
	outsider := "outsider"
	if _, err := cl.admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String(outsider)}); err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "leash-system", Name: "leash-config"},
		Data: map[string]string{"refuseEscalation": "critical"}}
	cl.create(t, cm)
	file := filepath.Join(t.TempDir(), "ceiling.json")
	writeFile := func(doc string) {
		t.Helper()
		if err := os.WriteFile(file, []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	writeFile("") // no ceiling yet
	runs := newOperatorRuns(t, "operator", "--kubeconfig", api.Kubeconfig(t, "operator"),
		"--iam-endpoint", local.url, "--root-credentials-file", local.credentialsPath(), "--cluster-name", "chg",
		"--config-map", "leash-system/leash-config", "--ceiling", file,
		"--metrics-bind-address", "0", "--health-probe-bind-address", "0")
	p := runs.next()
	p.start(t)

	cl.create(t, request(t, "apps", "reader", "apps", "- effect: Allow\n  action: [\"iam:GetUser\"]\n  resource: \"*\"\n"))
	cl.create(t, request(t, "apps", "lister", "apps", "- effect: Allow\n  action: [\"iam:GetUser\", \"iam:ListUsers\"]\n  resource: \"*\"\n"))
	users := map[string]string{}
	keys := map[string]*iam.Client{}
	var secrets []string
	for _, name := range []string{"reader", "lister"} {
		users[name] = userOf(t, cl.waitReady(t, "apps", name))
		k := secretKey(t, cl.secret(t, "apps", name+"-creds"))
		keys[name] = local.iam(k.ID, k.Secret.Reveal())
		secrets = append(secrets, k.Secret.Reveal())
	}
	ceilingARN := "arn:aws:iam::" + account + ":policy/leash/chg/ceiling/chg-leash-ceiling"

	// may checks with each old key what the ceiling in force allows it.
	may := func(step string, readOutsider, list bool) {
		t.Helper()
		for name, key := range keys {
			if _, err := key.GetUser(ctx, &iam.GetUserInput{UserName: aws.String(users[name])}); err != nil {
				t.Errorf("%s: iam:GetUser of its own user with %s's old key: %v, want allowed", step, name, err)
			}
			_, err := key.GetUser(ctx, &iam.GetUserInput{UserName: aws.String(outsider)})
			checkAllowed(t, fmt.Sprintf("%s: iam:GetUser %s with %s's old key", step, outsider, name), err, readOutsider)
		}
		_, err := keys["lister"].ListUsers(ctx, &iam.ListUsersInput{})
		checkAllowed(t, step+": iam:ListUsers with lister's old key", err, list)
	}
	// change applies a change and waits until every minted user is bounded
	// by want ("" for no ceiling).
	change := func(step, want string, apply func()) {
		t.Helper()
		start := time.Now()
		apply()
		waitFor(t, 30*time.Second, step+": every minted user bounded by the ceiling", func() (bool, string) {
			return ceilingHolds(t, cl.admin, ceilingARN, want, users)
		})
		t.Logf("%s: every minted user bounded %v after the change", step, time.Since(start).Round(100*time.Millisecond))
	}
	setConfigMap := func(ceiling string) func() {
		return func() {
			t.Helper()
			if err := cl.c.Get(ctx, types.NamespacedName{Namespace: "leash-system", Name: "leash-config"}, cm); err != nil {
				t.Fatal(err)
			}
			if ceiling == "" {
				delete(cm.Data, "ceiling")
			} else {
				cm.Data["ceiling"] = ceiling
			}
			if err := cl.c.Update(ctx, cm); err != nil {
				t.Fatal(err)
			}
		}
	}
	may("no ceiling", true, true)

	// Added through the file: lister is above it.
	change("added (file)", readersCeiling, func() { writeFile(readersCeiling) })
	may("added (file)", true, false)
	cl.waitCondition(t, "apps", "lister", leashv1.CredentialsProvisionFailure, corev1.ConditionTrue, operator.ReasonAboveCeiling)
	cl.waitReady(t, "apps", "reader")

	// Narrowed through the ConfigMap, which overrides the file: reader is
	// above it too.
	change("narrowed (ConfigMap)", leashOnlyCeiling, setConfigMap(leashOnlyCeiling))
	may("narrowed (ConfigMap)", false, false)
	cl.waitCondition(t, "apps", "reader", leashv1.CredentialsProvisionFailure, corev1.ConditionTrue, operator.ReasonAboveCeiling)

	// Widened through the ConfigMap: both keys get back what they lost.
	change("widened (ConfigMap)", listersCeiling, setConfigMap(listersCeiling))
	may("widened (ConfigMap)", true, true)
	cl.waitReady(t, "apps", "reader")
	cl.waitReady(t, "apps", "lister")

	// An invalid ceiling is refused with a log line saying why, and the
	// one in force stays, bounding every user.
	setConfigMap(`{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Action":"*","Resource":"*"}]}`)()
	waitFor(t, 30*time.Second, "a log line refusing the invalid ceiling", func() (bool, string) {
		for _, line := range strings.Split(p.stderr.String(), "\n") {
			if strings.Contains(line, `"msg":"refused the changed guardrails`) && strings.Contains(line, "has no Allow statement") {
				return true, ""
			}
		}
		return false, "no such line yet"
	})
	if ok, state := ceilingHolds(t, cl.admin, ceilingARN, listersCeiling, users); !ok {
		t.Errorf("after an invalid ceiling: %s; want the ceiling before it in force", state)
	}
	may("invalid (ConfigMap)", true, true)

	// Removed from the ConfigMap: the file's ceiling applies again.
	change("removed (ConfigMap)", readersCeiling, setConfigMap(""))
	may("removed (ConfigMap)", true, false)
	cl.waitCondition(t, "apps", "lister", leashv1.CredentialsProvisionFailure, corev1.ConditionTrue, operator.ReasonAboveCeiling)

	// Removed from the file: no ceiling, no boundary.
	change("removed (file)", "", func() { writeFile("") })
	may("removed (file)", true, true)
	cl.waitReady(t, "apps", "lister")

	runs.checkNoSecrets(t, append(secrets, secret))
}

// checkAllowed fails unless err is what allowed says: nil, or AccessDenied.
func checkAllowed(t *testing.T, what string, err error, allowed bool) {
	t.Helper()
	switch {
	case allowed && err != nil:
		t.Errorf("%s: %v, want allowed", what, err)
	case !allowed && apiErrCode(err) != "AccessDenied":
		t.Errorf("%s: %v, want AccessDenied by the ceiling boundary", what, err)
	}
}

// ceilingHolds reports whether every user (by request) has the ceiling
// policy arn as its permissions boundary and the policy's default version
// is want; with want "", whether none has a boundary.
func ceilingHolds(t *testing.T, admin *iam.Client, arn, want string, users map[string]string) (bool, string) {
	t.Helper()
	ctx := context.Background()
	wantBoundary := arn
	if want == "" {
		wantBoundary = ""
	}
	for req, name := range users {
		out, err := admin.GetUser(ctx, &iam.GetUserInput{UserName: aws.String(name)})
		if err != nil {
			t.Fatal(err)
		}
		have := ""
		if b := out.User.PermissionsBoundary; b != nil {
			have = aws.ToString(b.PermissionsBoundaryArn)
		}
		if have != wantBoundary {
			return false, fmt.Sprintf("the user of %s has boundary %q, want %q", req, have, wantBoundary)
		}
	}
	if want == "" {
		return true, ""
	}
	doc, err := defaultVersion(admin, arn)
	if err != nil {
		return false, err.Error()
	}
	have, err := policy.Parse([]byte(doc), policy.Identity)
	if err != nil {
		t.Fatal(err)
	}
	wanted, err := policy.Parse([]byte(want), policy.Identity)
	if err != nil {
		t.Fatal(err)
	}
	if !policy.Equivalent(have, wanted) {
		return false, "the ceiling policy's default version is " + doc
	}
	return true, ""
}

// defaultVersion is the document of a managed policy's default version.
func defaultVersion(admin *iam.Client, arn string) (string, error) {
	ctx := context.Background()
	p, err := admin.GetPolicy(ctx, &iam.GetPolicyInput{PolicyArn: aws.String(arn)})
	if err != nil {
		return "", err
	}
	v, err := admin.GetPolicyVersion(ctx, &iam.GetPolicyVersionInput{PolicyArn: aws.String(arn), VersionId: p.Policy.DefaultVersionId})
	if err != nil {
		return "", err
	}
	return url.QueryUnescape(aws.ToString(v.PolicyVersion.Document))
}
