package e2e

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/uuid"
	"sigs.k8s.io/controller-runtime/pkg/client"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/operator"
	"leash.dev/leash/policy/catalog"
)

// crashNS is the namespace, and the cluster name, of the crash test.
const crashNS = "crash"

// crashEntries are the statements of every request of the crash test.
const crashEntries = "- effect: Allow\n  action: [\"s3:GetObject\"]\n  resource: \"*\"\n"

// TestCrashAtEveryIAMCall kills `leash operator` with SIGKILL right after
// each IAM or STS call of a mint in turn, the call done in leash local but
// its answer never seen, and checks that a restart provisions every request
// with exactly one user and the one key its Secret names, leaving nothing
// that no request owns. It then does the same for the deprovisioning of
// every request, and checks that the sweep deletes a user no request owns
// and no user it must not touch.
//
// The operator reaches leash local through iamTap, a proxy that attributes
// each call to the user it is about and kills the operator before relaying
// the Nth answer. leash local's AfterCall hook would see every call too,
// but only its action: a restarted operator also re-syncs the requests of
// earlier rounds and sweeps every second, so "the Nth call since start"
// would not be the Nth call of the new request's mint.
func TestCrashAtEveryIAMCall(t *testing.T) {
	start := time.Now()
	cl := newCluster(t, clusterOptions{})
	ctx := context.Background()
	cl.namespace(t, crashNS)
	root := cl.adminKey(t)
	tap := newIAMTap(t, cl.url, root.ID)
	runs := newOperatorRuns(t, "operator", "--kubeconfig", cl.api.Kubeconfig(t, "operator"),
		"--iam-endpoint", tap.url, "--root-credentials-file", cl.local.AdminCredentialsPath(),
		"--namespace", crashNS, "--cluster-name", crashNS,
		"--metrics-bind-address", "0", "--health-probe-bind-address", "0",
		"--rotation-grace", "0", "--sweep-interval", "1s", "--sweep-grace", "2s")

	// Mint: once with a policy that fits inline, once with one that must be
	// a managed policy (more calls: GetPolicy, CreatePolicy, AttachUserPolicy),
	// once with one split across two managed policies (those calls twice).
	crashMints(t, cl, tap, runs, "r", crashEntries, 4)
	crashMints(t, cl, tap, runs, "m", bigCrashEntries(), 6)
	crashMints(t, cl, tap, runs, "s", splitCrashEntries(), 9)
	secrets := tap.secrets()
	for _, s := range crashSecrets(t, cl) {
		secrets = append(secrets, string(s.Data[operator.SecretKeySecret]))
	}

	// Deprovisioning, one request at a time: round n deletes d-n and kills
	// the operator at the nth call of its deprovisioning; a restart has to
	// finish it, and every other request keeps its user and key.
	first := runs.next()
	first.start(t)
	cl.create(t, request(t, crashNS, "d-1", crashNS, crashEntries))
	runs.waitAllReady(t, first, cl)
	first.terminate(t)
	var removeKills []string
	for n := 1; ; n++ {
		if n > 30 {
			t.Fatalf("every deletion round up to %d was killed; calls of the last round: %v", n-1, tap.counted())
		}
		name := fmt.Sprintf("d-%d", n)
		if err := cl.c.Delete(ctx, cl.get(t, crashNS, name)); err != nil {
			t.Fatal(err)
		}
		p := runs.next()
		tap.arm(p, n, callsAbout(crashUserPrefix(name)))
		p.start(t)
		runs.waitKillOr(t, p, tap, name+" to be gone", func() bool { return crashGone(t, cl, name) })
		killedAt := tap.disarm()
		calls := tap.counted()
		if killedAt == "" {
			p.terminate(t)
			t.Logf("deletion round %d: %s gone after %d calls of its deprovisioning, no kill: %s", n, name, len(calls), strings.Join(calls, ", "))
			checkRemoved(t, cl, name)
			checkMinted(t, cl)
			break
		}
		t.Logf("deletion round %d: kill %d after %s (calls: %s)", n, n, killedAt, strings.Join(calls, ", "))
		removeKills = append(removeKills, killedAt)
		restart := runs.next()
		restart.start(t)
		waitFor(t, 60*time.Second, name+" to be gone after the restart", func() (bool, string) { return crashGone(t, cl, name), "" })
		checkRemoved(t, cl, name)
		cl.create(t, request(t, crashNS, fmt.Sprintf("d-%d", n+1), crashNS, crashEntries))
		runs.waitAllReady(t, restart, cl)
		restart.terminate(t)
		checkMinted(t, cl)
	}
	t.Logf("deprovisioning kill points, in order: %s", strings.Join(removeKills, " | "))
	if len(removeKills) < 4 {
		t.Errorf("a deprovisioning was killed at only %d calls (%v); it deletes at least a key, a policy and the user", len(removeKills), removeKills)
	}
	for _, s := range crashSecrets(t, cl) {
		secrets = append(secrets, string(s.Data[operator.SecretKeySecret]))
	}

	// Every request at once: all are deleted while no operator runs, round
	// n's operator is killed at its nth call of any kind, and the next
	// round's is the restart, until a round deletes everything left before
	// its nth call. The deprovisionings run concurrently, so these kills
	// fall between calls of different requests.
	all := crashRequests(t, cl)
	for i := range all {
		if err := cl.c.Delete(ctx, &all[i]); err != nil {
			t.Fatal(err)
		}
	}
	var deleteKills []string
	for n := 1; ; n++ {
		if n > 400 {
			t.Fatalf("deleting %d requests did not finish in %d rounds", len(all), n-1)
		}
		p := runs.next()
		tap.arm(p, n, func(tapCall) bool { return true })
		p.start(t)
		runs.waitKillOr(t, p, tap, "every request to be gone", func() bool { return len(crashRequests(t, cl)) == 0 })
		killedAt := tap.disarm()
		if killedAt == "" {
			p.terminate(t)
			t.Logf("deleting all: round %d deleted everything left in %d calls, no kill", n, len(tap.counted()))
			break
		}
		t.Logf("deleting all: kill %d after %s (%d requests left)", n, killedAt, len(crashRequests(t, cl)))
		deleteKills = append(deleteKills, killedAt)
	}
	t.Logf("deleting all %d requests: %d kills, by the call they followed: %s", len(all), len(deleteKills), tally(deleteKills))
	checkNothingLeft(t, cl)

	// The sweep: a user minted for this cluster and namespace whose request
	// is gone is deleted with its key and policy; others are left alone.
	live := runs.next()
	live.start(t)
	cl.create(t, request(t, crashNS, "live", crashNS, crashEntries))
	runs.waitAllReady(t, live, cl)
	liveUser := userOf(t, cl.get(t, crashNS, "live"))
	gone := string(uuid.NewUUID())
	made := time.Now()
	orphan := handMadeUser(t, cl, "/leash/crash/", "crash-crash-gone-orphan", map[string]string{
		operator.TagCluster: crashNS, operator.TagRequestUID: gone, operator.TagRequest: crashNS + "/gone"})
	spared := map[string]string{
		handMadeUser(t, cl, "/leash/other/", "crash-other-path", map[string]string{
			operator.TagCluster: crashNS, operator.TagRequestUID: gone, operator.TagRequest: crashNS + "/gone"}): "under /leash/other/",
		handMadeUser(t, cl, "/leash/crash/", "crash-other-cluster", map[string]string{
			operator.TagCluster: "other", operator.TagRequestUID: gone, operator.TagRequest: crashNS + "/gone"}): "of another cluster",
		handMadeUser(t, cl, "/leash/crash/", "crash-other-namespace", map[string]string{
			operator.TagCluster: crashNS, operator.TagRequestUID: gone, operator.TagRequest: "elsewhere/gone"}): "of a namespace this operator does not watch",
	}
	// A managed policy made for a user that never got it (a crash between
	// CreatePolicy and AttachUserPolicy, then the request deleted) goes too.
	doc := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"ec2:DescribeInstances","Resource":"*"}]}`
	ghost, err := cl.admin.CreatePolicy(ctx, &iam.CreatePolicyInput{Path: aws.String("/leash/crash/"),
		PolicyName: aws.String("crash-crash-ghost-x-policy"), PolicyDocument: aws.String(doc)})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the sweep to delete "+orphan+" and the unattached policy", func() (bool, string) {
		_, err := cl.admin.GetUser(ctx, &iam.GetUserInput{UserName: aws.String(orphan)})
		_, perr := cl.admin.GetPolicy(ctx, &iam.GetPolicyInput{PolicyArn: ghost.Policy.Arn})
		return apiErrCode(err) == "NoSuchEntity" && apiErrCode(perr) == "NoSuchEntity", fmt.Sprint(err, perr)
	})
	t.Logf("the sweep deleted %s %v after it was made", orphan, time.Since(made).Round(100*time.Millisecond))
	time.Sleep(3 * time.Second) // three more sweeps
	for name, why := range spared {
		if len(cl.keys(t, name)) != 1 {
			t.Errorf("the sweep touched the keys of %s, a user %s", name, why)
		}
		out, err := cl.admin.ListUserPolicies(ctx, &iam.ListUserPoliciesInput{UserName: aws.String(name)})
		if err != nil || len(out.PolicyNames) != 1 {
			t.Errorf("the sweep touched the policy of %s, a user %s (%v)", name, why, err)
		}
	}
	if keys := cl.keys(t, liveUser); len(keys) != 1 {
		t.Errorf("the live request's user %s has keys %v after the sweeps, want its one key", liveUser, keys)
	}
	live.terminate(t)
	secrets = append(secrets, tap.secrets()...)
	secrets = append(secrets, root.Secret.Reveal())
	runs.checkNoSecrets(t, secrets)
	t.Logf("%d operator processes, %d killed; %d distinct secrets checked against their logs; %v in all",
		len(runs.procs), tap.kills, len(dedupe(secrets)), time.Since(start).Round(time.Second))
}

// crashUserPrefix is how the name of a request's user starts: the cluster,
// the namespace and the request's name, then a hash of its UID.
func crashUserPrefix(request string) string { return crashNS + "-" + crashNS + "-" + request + "-" }

// crashGone says whether a request no longer exists.
func crashGone(t *testing.T, cl *cluster, name string) bool {
	t.Helper()
	err := cl.c.Get(context.Background(), client.ObjectKey{Namespace: crashNS, Name: name}, &leashv1.CredentialsRequest{})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	return apierrors.IsNotFound(err)
}

// checkRemoved checks that a deleted request took its Secret and user with
// it (checkMinted finds a managed policy left behind).
func checkRemoved(t *testing.T, cl *cluster, name string) {
	t.Helper()
	if s := cl.secret(t, crashNS, name+"-creds"); s != nil {
		t.Errorf("the Secret of %s survived its deletion", name)
	}
	for _, u := range cl.users(t, "/leash/"+crashNS+"/") {
		if strings.HasPrefix(u, crashUserPrefix(name)) {
			t.Errorf("user %s of %s survived its deletion", u, name)
		}
	}
}

// readyTrue says whether a request's Ready condition is True.
func readyTrue(cr *leashv1.CredentialsRequest) bool {
	for _, c := range cr.Status.Conditions {
		if c.Type == leashv1.Ready {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func crashRequests(t *testing.T, cl *cluster) []leashv1.CredentialsRequest {
	t.Helper()
	var list leashv1.CredentialsRequestList
	if err := cl.c.List(context.Background(), &list, client.InNamespace(crashNS)); err != nil {
		t.Fatal(err)
	}
	return list.Items
}

func crashSecrets(t *testing.T, cl *cluster) []corev1.Secret {
	t.Helper()
	var list corev1.SecretList
	if err := cl.c.List(context.Background(), &list, client.InNamespace(crashNS)); err != nil {
		t.Fatal(err)
	}
	return list.Items
}

// crashUsers reads every user under /leash/crash/ with its tags.
func crashUsers(t *testing.T, cl *cluster) map[string]map[string]string {
	t.Helper()
	users := map[string]map[string]string{}
	for _, name := range cl.users(t, "/leash/"+crashNS+"/") {
		out, err := cl.admin.GetUser(context.Background(), &iam.GetUserInput{UserName: aws.String(name)})
		if err != nil {
			t.Fatal(err)
		}
		tags := map[string]string{}
		for _, tg := range out.User.Tags {
			tags[aws.ToString(tg.Key)] = aws.ToString(tg.Value)
		}
		users[name] = tags
	}
	return users
}

func crashPolicies(t *testing.T, cl *cluster) []string {
	t.Helper()
	out, err := cl.admin.ListPolicies(context.Background(), &iam.ListPoliciesInput{
		Scope: iamtypes.PolicyScopeTypeLocal, PathPrefix: aws.String("/leash/" + crashNS + "/")})
	if err != nil {
		t.Fatal(err)
	}
	var arns []string
	for _, p := range out.Policies {
		if strings.HasPrefix(aws.ToString(p.Path), "/leash/"+crashNS+"/ceiling/") {
			continue // the ceiling, which no request owns (TestCrashCeiling)
		}
		arns = append(arns, aws.ToString(p.Arn))
	}
	return arns
}

// checkMinted checks what a crash must never leave: every request has
// exactly one user, carrying its UID; that user has exactly one key, the one
// in the request's Secret, and it works as the user; and no user under the
// cluster's path belongs to no request.
func checkMinted(t *testing.T, cl *cluster) {
	t.Helper()
	ctx := context.Background()
	users := crashUsers(t, cl)
	owned := map[string][]string{}
	for name, tags := range users {
		owned[tags[operator.TagRequestUID]] = append(owned[tags[operator.TagRequestUID]], name)
	}
	crs := crashRequests(t, cl)
	for _, cr := range crs {
		mine := owned[string(cr.UID)]
		delete(owned, string(cr.UID))
		if len(mine) != 1 {
			t.Errorf("%s: %d IAM users carry its UID (%v), want 1", cr.Name, len(mine), mine)
			continue
		}
		user := mine[0]
		if got := userOf(t, &cr); got != user {
			t.Errorf("%s: status names user %q, IAM has %q", cr.Name, got, user)
		}
		key := secretKey(t, cl.secret(t, cr.Spec.SecretRef.Namespace, cr.Spec.SecretRef.Name))
		if keys := cl.keys(t, user); len(keys) != 1 || keys[0] != key.ID {
			t.Errorf("%s: user %s has keys %v, want only %s, the Secret's", cr.Name, user, keys, key.ID)
		}
		id, err := cl.iamClient(key).CallerIdentity(ctx)
		if want := "arn:aws:iam::" + account + ":user/leash/" + crashNS + "/" + user; err != nil || id.ARN != want {
			t.Errorf("%s: the Secret's key acts as %q (%v), want %s", cr.Name, id.ARN, err, want)
		}
	}
	for uid, names := range owned {
		t.Errorf("users %v (request UID %q) belong to no request", names, uid)
	}
	// Requests named m-N are over the inline limit: each has one managed
	// policy, attached to its user; requests named s-N are over one managed
	// policy's limit: each has two; there are no others.
	want := map[string]bool{}
	for _, cr := range crs {
		prefix := "arn:aws:iam::" + account + ":policy/leash/" + crashNS + "/" + userOf(t, &cr)
		switch {
		case strings.HasPrefix(cr.Name, "m-"):
			want[prefix+"-policy"] = true
		case strings.HasPrefix(cr.Name, "s-"):
			want[prefix+"-policy"], want[prefix+"-policy-2"] = true, true
		}
	}
	for _, arn := range crashPolicies(t, cl) {
		if !want[arn] {
			t.Errorf("managed policy %s belongs to no request over the inline limit, or is a part too many", arn)
		}
		delete(want, arn)
	}
	for arn := range want {
		t.Errorf("managed policy %s is missing", arn)
	}
	if t.Failed() {
		t.FailNow()
	}
	t.Logf("  %d requests, each with one user and the one key of its Secret; no other user", len(crs))
}

// checkNothingLeft checks that deleting every request left no request,
// Secret, user or managed policy.
func checkNothingLeft(t *testing.T, cl *cluster) {
	t.Helper()
	if crs := crashRequests(t, cl); len(crs) != 0 {
		t.Errorf("%d requests remain after deletion", len(crs))
	}
	for _, s := range crashSecrets(t, cl) {
		if s.Labels[leashv1.LabelCredentialsRequest] == "true" {
			t.Errorf("Secret %s remains after its request's deletion", s.Name)
		}
	}
	if users := cl.users(t, "/leash/"+crashNS+"/"); len(users) != 0 {
		t.Errorf("users %v remain after every request's deletion", users)
	}
	if arns := crashPolicies(t, cl); len(arns) != 0 {
		t.Errorf("managed policies %v remain after every request's deletion", arns)
	}
}

// handMadeUser makes a user as a crashed leash could have left it: tagged,
// with a key and an inline policy.
func handMadeUser(t *testing.T, cl *cluster, path, name string, tags map[string]string) string {
	t.Helper()
	ctx := context.Background()
	in := &iam.CreateUserInput{UserName: aws.String(name), Path: aws.String(path)}
	for k, v := range tags {
		in.Tags = append(in.Tags, iamtypes.Tag{Key: aws.String(k), Value: aws.String(v)})
	}
	if _, err := cl.admin.CreateUser(ctx, in); err != nil {
		t.Fatal(err)
	}
	if _, err := cl.admin.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{UserName: aws.String(name)}); err != nil {
		t.Fatal(err)
	}
	if _, err := cl.admin.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: aws.String(name), PolicyName: aws.String(name + "-policy"),
		PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}]}`)}); err != nil {
		t.Fatal(err)
	}
	return name
}

func tally(actions []string) string {
	n := map[string]int{}
	for _, a := range actions {
		n[a]++
	}
	var out []string
	for a, c := range n {
		out = append(out, fmt.Sprintf("%s ×%d", a, c))
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

func dedupe(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range s {
		if v != "" && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// operatorRuns starts `leash operator` processes with the same arguments
// and keeps every one's log: printed if the test fails, and checked for
// secrets.
type operatorRuns struct {
	args  []string
	procs []*operatorProc
}

func newOperatorRuns(t *testing.T, args ...string) *operatorRuns {
	r := &operatorRuns{args: args}
	t.Cleanup(func() {
		for i, p := range r.procs {
			if p.started {
				select {
				case <-p.exited:
				default:
					_ = p.cmd.Process.Kill()
					<-p.exited
				}
			}
			if t.Failed() {
				t.Logf("stderr of operator process %d:\n%s", i+1, p.stderr)
			}
		}
	})
	return r
}

// next prepares a process, not started yet, so that a tap can be armed to
// kill it before it makes its first call.
func (r *operatorRuns) next() *operatorProc {
	p := &operatorProc{stderr: &syncBuffer{}, exited: make(chan struct{})}
	p.cmd = exec.Command(leashBin, r.args...)
	p.cmd.Stdout, p.cmd.Stderr = p.stderr, p.stderr
	r.procs = append(r.procs, p)
	return p
}

// waitKillOr waits until the tap kills p or done is true. The tap stays
// armed: its disarm says whether a kill came.
func (r *operatorRuns) waitKillOr(t *testing.T, p *operatorProc, tap *iamTap, what string, done func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for tap.killedAt() == "" && !done() {
		select {
		case <-p.exited:
			if tap.killedAt() == "" {
				t.Fatalf("the operator exited by itself (%v) before %s", p.err, what)
			}
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited 60s for a kill or %s; calls so far: %v", what, tap.counted())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitAllReady waits until every request in the crash test's namespace is
// Ready.
func (r *operatorRuns) waitAllReady(t *testing.T, p *operatorProc, cl *cluster) {
	t.Helper()
	waitAllReadyIn(t, p, cl, crashNS)
}

// waitAllReadyIn waits until every request in ns is Ready, failing if the
// operator exits meanwhile.
func waitAllReadyIn(t *testing.T, p *operatorProc, cl *cluster, ns string) {
	t.Helper()
	waitFor(t, 60*time.Second, "every request to be Ready", func() (bool, string) {
		select {
		case <-p.exited:
			t.Fatalf("the operator exited by itself: %v", p.err)
		default:
		}
		var list leashv1.CredentialsRequestList
		if err := cl.c.List(context.Background(), &list, client.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
		var pending []string
		for _, cr := range list.Items {
			if !readyTrue(&cr) {
				pending = append(pending, cr.Name)
			}
		}
		return len(pending) == 0, fmt.Sprintf("not Ready: %v", pending)
	})
}

// checkNoSecrets fails if any operator's log holds one of secrets.
func (r *operatorRuns) checkNoSecrets(t *testing.T, secrets []string) {
	t.Helper()
	for i, p := range r.procs {
		log := p.stderr.String()
		for _, s := range dedupe(secrets) {
			if strings.Contains(log, s) {
				t.Errorf("the log of operator process %d holds a secret access key", i+1)
			}
		}
	}
}

// operatorProc is one `leash operator` process.
type operatorProc struct {
	cmd     *exec.Cmd
	stderr  *syncBuffer
	started bool
	exited  chan struct{}
	err     error
}

func (p *operatorProc) start(t *testing.T) {
	t.Helper()
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start leash operator: %v", err)
	}
	p.started = true
	go func() { p.err = p.cmd.Wait(); close(p.exited) }()
}

// kill ends the process with SIGKILL and returns once it is gone.
func (p *operatorProc) kill() {
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.exited
}

// terminate stops the process with SIGTERM, as Kubernetes does, and expects
// a clean exit.
func (p *operatorProc) terminate(t *testing.T) {
	t.Helper()
	// A SIGTERM before main installs its handler would end the process
	// with the default action, not a clean stop.
	waitFor(t, 30*time.Second, "the operator to start its workers", func() (bool, string) {
		return strings.Contains(p.stderr.String(), `"msg":"Starting workers"`), p.stderr.String()
	})
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatalf("SIGTERM: %v", err)
	}
	select {
	case <-p.exited:
	case <-time.After(30 * time.Second):
		t.Fatal("the operator still runs 30s after SIGTERM")
	}
	if p.err != nil {
		t.Errorf("the operator exited with %v after SIGTERM", p.err)
	}
}

// tapCall is one IAM or STS call through the tap.
type tapCall struct {
	action string
	// user is the UserName parameter, if any, else the role the call is
	// about (RoleName, or the name in RoleArn).
	user string
	// policy is the name in the PolicyArn parameter, if any.
	policy string
	// signer is "root" for the root key, else the user a key was created
	// for (as seen through the tap), else the key ID.
	signer string
	// code is AWS's error code, "" for success.
	code string
}

func (c tapCall) String() string {
	s := c.action
	if c.action == "GetCallerIdentity" {
		if c.signer == "root" {
			s += " (root key)"
		} else {
			s += " (new key)"
		}
	}
	if c.code != "" {
		s += " → " + c.code
	}
	return s
}

// iamTap is a proxy between an operator and leash local. It forwards every
// call, waits for leash local's whole answer (so the call's effect is
// applied), and, at the armed call, kills the operator before relaying it:
// the operator dies not knowing what its last call did.
type iamTap struct {
	url       string
	upstream  string
	rootKeyID string
	client    *http.Client

	mu       sync.Mutex
	victim   *operatorProc
	armAt    int
	counts   func(tapCall) bool
	calls    []string // the counted calls since arm
	killed   string
	kills    int
	keyOwner map[string]string // key ID → user, from CreateAccessKey answers
	secret   []string          // every secret access key leash local handed out
}

func newIAMTap(t *testing.T, upstream, rootKeyID string) *iamTap {
	t.Helper()
	tp := &iamTap{upstream: upstream, rootKeyID: rootKeyID, keyOwner: map[string]string{},
		client: &http.Client{Transport: &http.Transport{DisableCompression: true}}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: tp}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	tp.url = "http://" + ln.Addr().String()
	return tp
}

// arm makes the tap kill p after the nth call that counts; p may not have
// started yet.
func (tp *iamTap) arm(p *operatorProc, n int, counts func(tapCall) bool) {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	tp.victim, tp.armAt, tp.counts, tp.calls, tp.killed = p, n, counts, nil, ""
}

// disarm stops the tap from killing and returns the call it killed the
// operator after, "" when it did not; a kill under way completes first.
func (tp *iamTap) disarm() string {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	tp.victim, tp.armAt, tp.counts = nil, 0, nil
	return tp.killed
}

func (tp *iamTap) killedAt() string {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	return tp.killed
}

func (tp *iamTap) counted() []string {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	return append([]string(nil), tp.calls...)
}

func (tp *iamTap) secrets() []string {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	return append([]string(nil), tp.secret...)
}

func (tp *iamTap) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	// Not r's context: a call the operator gave up on still completes, as
	// it would in AWS.
	out, err := http.NewRequestWithContext(context.Background(), r.Method, tp.upstream+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	out.Header = r.Header.Clone()
	out.Host = r.Host // signed by the caller
	resp, err := tp.client.Do(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	answer, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	if tp.observe(r, body, resp.StatusCode, answer) {
		panic(http.ErrAbortHandler) // close the connection without an answer
	}
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(answer)
}

// observe records a call and says whether it killed the operator.
func (tp *iamTap) observe(r *http.Request, body []byte, status int, answer []byte) bool {
	form, _ := url.ParseQuery(string(body))
	c := tapCall{action: form.Get("Action"), user: form.Get("UserName")}
	if target := r.Header.Get("X-Amz-Target"); c.action == "" && target != "" {
		c.action = target[strings.LastIndexByte(target, '.')+1:] // a JSON-protocol call, such as CloudTrail's LookupEvents
	}
	if c.user == "" { // a role's call: by its name, or its ARN (AssumeRoleWithWebIdentity)
		c.user = form.Get("RoleName")
	}
	if arn := form.Get("RoleArn"); c.user == "" && arn != "" {
		c.user = arn[strings.LastIndex(arn, "/")+1:]
	}
	if arn := form.Get("PolicyArn"); arn != "" {
		c.policy = arn[strings.LastIndex(arn, "/")+1:]
	} else if c.user == "" {
		c.policy = form.Get("PolicyName") // CreatePolicy
	}
	if status >= 300 {
		var e struct {
			Code string `xml:"Error>Code"`
		}
		_ = xml.Unmarshal(answer, &e)
		c.code = e.Code
		if c.code == "" {
			c.code = fmt.Sprint(status)
		}
	}
	keyID := ""
	if _, cred, ok := strings.Cut(r.Header.Get("Authorization"), "Credential="); ok {
		keyID, _, _ = strings.Cut(cred, "/")
	}
	tp.mu.Lock()
	defer tp.mu.Unlock()
	switch {
	case keyID == tp.rootKeyID:
		c.signer = "root"
	case tp.keyOwner[keyID] != "":
		c.signer = tp.keyOwner[keyID]
	default:
		c.signer = keyID
	}
	if c.action == "CreateAccessKey" && c.code == "" {
		var k struct {
			ID     string `xml:"CreateAccessKeyResult>AccessKey>AccessKeyId"`
			Secret string `xml:"CreateAccessKeyResult>AccessKey>SecretAccessKey"`
		}
		if err := xml.Unmarshal(answer, &k); err == nil && k.ID != "" {
			tp.keyOwner[k.ID] = c.user
			tp.secret = append(tp.secret, k.Secret)
		}
	}
	if tp.counts == nil || !tp.counts(c) {
		return false
	}
	tp.calls = append(tp.calls, c.String())
	if len(tp.calls) != tp.armAt || tp.victim == nil || tp.killed != "" {
		return false
	}
	tp.victim.kill()
	tp.killed = c.String()
	tp.kills++
	return true
}

// callsAbout counts the calls of one request's mint or deprovisioning: the
// first root identity call of the process (every sync needs it first;
// concurrent first syncs may repeat it), calls about the request's user or
// its managed policy, and calls signed by a key made for the user (the
// proof).
func callsAbout(userPrefix string) func(tapCall) bool {
	rootSeen := false
	return func(c tapCall) bool {
		switch {
		case c.action == "GetCallerIdentity" && c.signer == "root":
			if rootSeen {
				return false
			}
			rootSeen = true
			return true
		case c.action == "GetCallerIdentity":
			return strings.HasPrefix(c.signer, userPrefix)
		}
		return strings.HasPrefix(c.user, userPrefix) || strings.HasPrefix(c.policy, userPrefix)
	}
}

// crashMints runs the mint rounds: round n creates PREFIX-n and kills the
// operator at the nth call of its mint; a restart then has to finish it. The
// first round whose request is Ready before its nth call has passed the
// mint's last call. minKills is the fewest calls such a mint can make.
func crashMints(t *testing.T, cl *cluster, tap *iamTap, runs *operatorRuns, prefix, entries string, minKills int) {
	t.Helper()
	crashMintsCounting(t, cl, tap, runs, prefix, entries, minKills, func(tapCall) bool { return false })
}

// crashMintsCounting is crashMints that also counts, and kills at, the
// calls also picks out (such as those about the ceiling policy).
func crashMintsCounting(t *testing.T, cl *cluster, tap *iamTap, runs *operatorRuns, prefix, entries string, minKills int, also func(tapCall) bool) {
	t.Helper()
	kills := crashRounds(t, cl, tap, runs, crashRound{ns: crashNS, prefix: prefix,
		create: func(name string) { cl.create(t, request(t, crashNS, name, crashNS, entries)) },
		counts: func(name string) func(tapCall) bool {
			about := callsAbout(crashUserPrefix(name))
			return func(c tapCall) bool { return about(c) || also(c) }
		},
		check: func() { checkMinted(t, cl) }})
	t.Logf("%s: mint kill points, in order: %s", prefix, strings.Join(kills, " | "))
	if len(kills) < minKills {
		t.Errorf("a mint was killed at only %d calls (%v); it makes at least CreateUser, PutUserPolicy, CreateAccessKey and the proof", len(kills), kills)
	}
}

// crashRound is one kind of provisioning to kill at each of its calls: the
// requests' namespace and name prefix, how a round's request is made, which
// calls count as its provisioning, and what must hold after each restart.
type crashRound struct {
	ns, prefix string
	create     func(name string)
	counts     func(name string) func(tapCall) bool
	check      func()
}

// crashRounds makes one request a round and kills the operator at the
// round's nth counted call; a restart has to finish what the kill cut, and
// r.check holds after it. The first round whose request is Ready before its
// nth call has passed the provisioning's last call. It returns the calls
// killed at, in order.
func crashRounds(t *testing.T, cl *cluster, tap *iamTap, runs *operatorRuns, r crashRound) []string {
	t.Helper()
	var kills []string
	for n := 1; ; n++ {
		if n > 20 {
			t.Fatalf("every round up to %d was killed before its request was Ready; calls of the last round: %v", n-1, tap.counted())
		}
		name := fmt.Sprintf("%s-%d", r.prefix, n)
		r.create(name)
		p := runs.next()
		tap.arm(p, n, r.counts(name))
		p.start(t)
		runs.waitKillOr(t, p, tap, name+" Ready", func() bool { return readyTrue(cl.get(t, r.ns, name)) })
		killedAt := tap.disarm()
		calls := tap.counted()
		if killedAt == "" {
			p.terminate(t)
			t.Logf("round %d: %s Ready after %d calls, no kill: %s", n, name, len(calls), strings.Join(calls, ", "))
			r.check()
			return kills
		}
		// A kill after the request turned Ready hit a later sync, not the
		// provisioning: that ended with the call before.
		past := readyTrue(cl.get(t, r.ns, name))
		t.Logf("round %d: kill %d after %s (calls: %s)%s", n, n, killedAt, strings.Join(calls, ", "),
			map[bool]string{true: "; the request was already Ready, so this call is past its provisioning"}[past])
		if !past {
			kills = append(kills, killedAt)
		}
		restart := runs.next()
		restart.start(t)
		waitAllReadyIn(t, restart, cl, r.ns)
		restart.terminate(t)
		r.check()
		if past {
			return kills
		}
	}
}

// bigCrashEntries is a request over IAM's 2,048-character inline limit, of
// actions AWS has (the operator refuses others before any IAM call).
func bigCrashEntries() string {
	var actions []string
	for _, a := range catalog.Default().Expand("ec2:Describe*")[:80] {
		actions = append(actions, fmt.Sprintf("%q", a.String()))
	}
	return "- effect: Allow\n  action: [" + strings.Join(actions, ", ") + "]\n  resource: \"*\"\n"
}

// splitCrashEntries is a request over IAM's 6,144-character limit of one
// managed policy: 80 statements of about 85 characters, packed whole into
// two managed policies.
func splitCrashEntries() string {
	var entries string
	for i := 0; i < 80; i++ {
		entries += fmt.Sprintf("- effect: Allow\n  action: [\"s3:GetObject\"]\n  resource: \"arn:aws:s3:::crash-split-bucket-%02d/*\"\n", i)
	}
	return entries
}
