package operator

import (
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/localaws"
	"leash.dev/leash/localaws/faults"
	"leash.dev/leash/policy"
)

// TestMint runs the Provisioner's mint against leash local and a folder
// of Secrets, one fresh endpoint per case, and asserts what IAM and the
// Secret files hold afterwards.
func TestMint(t *testing.T) {
	tests := []struct {
		name string
		opts envOptions
		run  func(t *testing.T, e *env)
	}{
		{"a request gets a tagged user, its policy and a working key that can do only what was asked", envOptions{}, mintCreates},
		{"a permission change rewrites the policy and keeps the key", envOptions{}, mintPermissionChange},
		{"a key older than rotate-after is replaced by a proven one and the old one deleted after the grace",
			envOptions{cfg: Config{RotateAfter: 2 * time.Minute, RotationGrace: time.Minute}}, mintRotation},
		{"a rotation due while the previous key's grace runs retires that key early: never three keys",
			envOptions{cfg: Config{RotateAfter: 2 * time.Minute, RotationGrace: time.Minute}}, mintRotationDuringGrace},
		{"a policy over the inline limit becomes a managed policy of its user only, and inline again when it shrinks", envOptions{}, mintInlineManagedSwitch},
		{"a policy over one managed policy is split across managed policies of its user, merged into one and inline again as it shrinks, the key keeping every statement", envOptions{}, mintSplitSwitch},
		{"statements too large for ten managed policies, or one over a managed policy, are refused before any user is made", envOptions{}, mintRefusesTooLarge},
		{"a user with the request's name owned by another request is not adopted", envOptions{}, mintRefusesAnotherRequestsUser},
		{"a new key acting as another ARN than the user's is not published", envOptions{}, mintRefusesKeyOfAnotherPrincipal},
		{"a new key acting as another user is not published", envOptions{}, mintRefusesKeyActingAsAnotherUser},
		{"a new key is published only once it works, and deleted if it never does",
			envOptions{cfg: Config{ProofTimeout: 400 * time.Millisecond}, faults: faults.Config{PropagationDelay: time.Minute}}, mintWaitsForPropagation},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.run(t, newEnv(t, tt.opts)) })
	}
}

func mintCreates(t *testing.T, e *env) {
	cr := mintRequest(t, "reader", allow("*", "iam:ListUsers"))
	out := e.ready(t, cr)
	name := userName("unit", "apps", "reader", string(cr.UID))
	arn := e.userARN(name)
	if out.Principal != arn || out.User != name || out.Policy != policyName(name) || out.RequeueAfter != 0 {
		t.Errorf("outcome principal %s, user %s, policy %s, requeue %v; want %s, %s, %s and no requeue without rotation",
			out.Principal, out.User, out.Policy, out.RequeueAfter, arn, name, policyName(name))
	}

	u, err := e.admin.GetUser(e.ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	wantTags := map[string]string{TagCluster: "unit", TagRequestUID: "uid-reader", TagRequest: "apps/reader", "kubernetes.io/cluster/unit": "owned"}
	if u.Path != "/leash/unit/" || fmt.Sprint(u.Tags) != fmt.Sprint(wantTags) || u.Boundary != "" {
		t.Errorf("user path %s, tags %v, boundary %q; want /leash/unit/, %v and none", u.Path, u.Tags, u.Boundary, wantTags)
	}
	wantPolicy(t, e, name, `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Action":"iam:ListUsers","Resource":"*"},
		{"Effect":"Allow","Action":"iam:GetUser","Resource":"`+arn+`"}]}`)
	if attached, err := e.admin.AttachedUserPolicies(e.ctx, name); err != nil || len(attached) != 0 {
		t.Errorf("attached policies %v (%v), want none for a policy that fits inline", attached, err)
	}

	s := e.secret(t, cr)
	if s == nil || s.Annotations[leashv1.AnnotationCredentialsRequest] != "apps/reader" || s.Labels[leashv1.LabelCredentialsRequest] != "true" {
		t.Fatalf("Secret apps/reader-creds = %v, want one annotated with its request", s)
	}
	if len(s.Data) != 3 {
		t.Errorf("Secret data keys %v, want %s, %s and %s only", keysOf(s.Data), SecretKeyID, SecretKeySecret, SecretKeyCredentials)
	}
	key := e.publishedKey(t, cr)
	if ids := e.keyIDs(t, name); !slices.Equal(ids, []string{key.ID}) {
		t.Errorf("IAM keys %v, want only the published %s", ids, key.ID)
	}
	e.actsAs(t, key, arn)
	kc := e.admin.WithKey(key)
	if _, err := kc.ListUsers(e.ctx, "/"); err != nil {
		t.Errorf("the key may not do what was requested (iam:ListUsers): %v", err)
	}
	if _, err := kc.GetUser(e.ctx, name); err != nil {
		t.Errorf("the key may not read its own user: %v", err)
	}
	if _, err := kc.CreateUser(e.ctx, iamclient.NewUser{Name: "intruder"}); !iamclient.IsAccessDenied(err) {
		t.Errorf("iam:CreateUser with the key: %v, want AccessDenied", err)
	}
	if _, err := kc.GetUser(e.ctx, localaws.AdminUser); !iamclient.IsAccessDenied(err) {
		t.Errorf("iam:GetUser of another user with the key: %v, want AccessDenied", err)
	}
	want := []string{"UserCreated", "PolicyCreated", "AccessKeyCreated"}
	if got := e.events.reasons(corev1.EventTypeNormal); !slices.Equal(got, want) {
		t.Errorf("Events %v, want %v", got, want)
	}

	// A second sync finds everything in place and changes nothing.
	e.ready(t, cr)
	if got := e.events.reasons(corev1.EventTypeNormal); len(got) != len(want) {
		t.Errorf("a sync with nothing to do recorded %v", got[len(want):])
	}
	if again := e.publishedKey(t, cr); again.ID != key.ID {
		t.Errorf("a sync with nothing to do replaced key %s with %s", key.ID, again.ID)
	}
}

func mintPermissionChange(t *testing.T, e *env) {
	cr := mintRequest(t, "reader", allow("*", "iam:ListUsers"))
	e.ready(t, cr)
	key := e.publishedKey(t, cr)
	name := userName("unit", "apps", "reader", string(cr.UID))

	setEntries(t, cr, allow("*", "iam:ListPolicies"))
	e.ready(t, cr)
	wantPolicy(t, e, name, `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Action":"iam:ListPolicies","Resource":"*"},
		{"Effect":"Allow","Action":"iam:GetUser","Resource":"`+e.userARN(name)+`"}]}`)
	if now := e.publishedKey(t, cr); now.ID != key.ID {
		t.Errorf("the Secret's key changed from %s to %s on a permission change", key.ID, now.ID)
	}
	if ids := e.keyIDs(t, name); !slices.Equal(ids, []string{key.ID}) {
		t.Errorf("IAM keys %v, want only %s", ids, key.ID)
	}
	kc := e.admin.WithKey(key)
	if _, err := kc.ListPolicies(e.ctx, "/"); err != nil {
		t.Errorf("the key may not do what is requested now (iam:ListPolicies): %v", err)
	}
	if _, err := kc.ListUsers(e.ctx, "/"); !iamclient.IsAccessDenied(err) {
		t.Errorf("iam:ListUsers, no longer requested: %v, want AccessDenied", err)
	}
	if got := e.events.reasons(corev1.EventTypeNormal); !slices.Contains(got, "PolicyUpdated") || count(got, "AccessKeyCreated") != 1 {
		t.Errorf("Events %v, want a PolicyUpdated and a single AccessKeyCreated", got)
	}
}

func mintRotation(t *testing.T, e *env) {
	cr := mintRequest(t, "reader", allow("*", "iam:ListUsers"))
	out := e.ready(t, cr)
	name := userName("unit", "apps", "reader", string(cr.UID))
	arn := e.userARN(name)
	k1 := e.publishedKey(t, cr)
	if out.RequeueAfter < time.Minute || out.RequeueAfter > 2*time.Minute {
		t.Errorf("requeue after %v, want the rotation's 2m", out.RequeueAfter)
	}

	e.clock.advance(time.Minute)
	e.ready(t, cr)
	if k := e.publishedKey(t, cr); k.ID != k1.ID {
		t.Fatalf("key %s replaced by %s before it was due", k1.ID, k.ID)
	}

	e.clock.advance(time.Minute + time.Second)
	e.ready(t, cr)
	k2 := e.publishedKey(t, cr)
	if k2.ID == k1.ID {
		t.Fatal("the key was not rotated after rotate-after")
	}
	e.actsAs(t, k2, arn)
	e.actsAs(t, k1, arn) // pods still reading the old Secret keep working
	if ids := e.keyIDs(t, name); !slices.Equal(ids, sorted(k1.ID, k2.ID)) {
		t.Errorf("IAM keys during the grace %v, want the old %s and the new %s", ids, k1.ID, k2.ID)
	}
	if prev := e.secret(t, cr).Annotations[annotationPreviousKey]; prev != k1.ID {
		t.Errorf("the Secret records previous key %q, want %s", prev, k1.ID)
	}

	e.clock.advance(30 * time.Second) // still within the grace
	e.ready(t, cr)
	if ids := e.keyIDs(t, name); len(ids) != 2 {
		t.Errorf("IAM keys %v before the grace ended, want both", ids)
	}

	e.clock.advance(31 * time.Second)
	e.ready(t, cr)
	if ids := e.keyIDs(t, name); !slices.Equal(ids, []string{k2.ID}) {
		t.Errorf("IAM keys after the grace %v, want only %s", ids, k2.ID)
	}
	if _, err := e.admin.WithKey(k1).CallerIdentity(e.ctx); !iamclient.IsInvalidKey(err) {
		t.Errorf("the retired key: %v, want it refused", err)
	}
	s := e.secret(t, cr)
	if _, ok := s.Annotations[annotationPreviousKey]; ok || string(s.Data[SecretKeyID]) != k2.ID {
		t.Errorf("Secret after the grace: key %s, annotations %v; want %s and no previous key", s.Data[SecretKeyID], s.Annotations, k2.ID)
	}
	want := []string{"UserCreated", "PolicyCreated", "AccessKeyCreated", "AccessKeyRotated", "AccessKeyDeleted"}
	if got := e.events.reasons(corev1.EventTypeNormal); !slices.Equal(got, want) {
		t.Errorf("Events %v, want %v", got, want)
	}
}

func mintRotationDuringGrace(t *testing.T, e *env) {
	// Config.Validate refuses a grace longer than rotate-after at start;
	// the defence pinned here is for the state a changed setting or a
	// skewed clock can still leave, so the grace is lengthened behind it.
	e.p.cfg.RotationGrace = 5 * time.Minute
	cr := mintRequest(t, "reader", allow("*", "iam:ListUsers"))
	e.ready(t, cr)
	name := userName("unit", "apps", "reader", string(cr.UID))
	k1 := e.publishedKey(t, cr)
	e.clock.advance(2*time.Minute + time.Second)
	e.ready(t, cr)
	k2 := e.publishedKey(t, cr)

	// k2 is due while k1's five minutes of grace still run: IAM allows two
	// keys, so k1 goes before k3 is made.
	e.clock.advance(2*time.Minute + time.Second)
	e.ready(t, cr)
	k3 := e.publishedKey(t, cr)
	if k3.ID == k2.ID || k3.ID == k1.ID {
		t.Fatalf("no new key: %s", k3.ID)
	}
	if ids := e.keyIDs(t, name); !slices.Equal(ids, sorted(k2.ID, k3.ID)) {
		t.Errorf("IAM keys %v, want %s (in its grace) and %s only", ids, k2.ID, k3.ID)
	}
	e.actsAs(t, k2, e.userARN(name))
	e.actsAs(t, k3, e.userARN(name))
	if prev := e.secret(t, cr).Annotations[annotationPreviousKey]; prev != k2.ID {
		t.Errorf("previous key %q, want %s", prev, k2.ID)
	}
}

func mintInlineManagedSwitch(t *testing.T, e *env) {
	small := []leashv1.StatementEntry{allow("*", "iam:ListUsers")}
	large := append(largeEntries(), small...)
	cr := mintRequest(t, "big", small...)
	e.ready(t, cr)
	name := userName("unit", "apps", "big", string(cr.UID))
	key := e.publishedKey(t, cr)
	managed := "arn:aws:iam::" + e.account + ":policy/leash/unit/" + policyName(name)

	setEntries(t, cr, large...)
	if spec, _ := awsSpec(cr); spec != nil {
		if _, doc, err := requestedPolicy(spec); err != nil || doc.Size <= inlinePolicyLimit {
			t.Fatalf("the large request does not exceed the inline limit (%v)", err)
		}
	}
	out := e.ready(t, cr)
	if out.Policy != managed {
		t.Errorf("outcome policy %s, want %s", out.Policy, managed)
	}
	if attached, err := e.admin.AttachedUserPolicies(e.ctx, name); err != nil || !slices.Equal(attached, []string{managed}) {
		t.Errorf("attached %v (%v), want %s", attached, err, managed)
	}
	if inline, err := e.admin.UserPolicyNames(e.ctx, name); err != nil || len(inline) != 0 {
		t.Errorf("inline policies %v (%v) beside the managed one, want none", inline, err)
	}
	policies, err := e.admin.ListPolicies(e.ctx, "/leash/")
	if err != nil {
		t.Fatal(err)
	}
	if len(policies) != 1 || policies[0].ARN != managed || policies[0].Attachments != 1 {
		t.Errorf("managed policies %+v, want %s attached once, to its user", policies, managed)
	}
	doc, err := e.admin.ManagedPolicyDocument(e.ctx, managed)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(doc, "leash-unit-test-bucket-number-029") {
		t.Errorf("the managed policy lacks the request's last entry")
	}
	if _, err := e.admin.WithKey(key).ListUsers(e.ctx, "/"); err != nil {
		t.Errorf("the key lost iam:ListUsers under the managed policy: %v", err)
	}

	setEntries(t, cr, small...)
	out = e.ready(t, cr)
	if out.Policy != policyName(name) {
		t.Errorf("outcome policy %s, want the inline %s", out.Policy, policyName(name))
	}
	if attached, err := e.admin.AttachedUserPolicies(e.ctx, name); err != nil || len(attached) != 0 {
		t.Errorf("attached %v (%v) after shrinking, want none", attached, err)
	}
	if _, err := e.admin.ManagedPolicyDocument(e.ctx, managed); !iamclient.IsNotFound(err) {
		t.Errorf("the managed policy after shrinking: %v, want it deleted", err)
	}
	wantPolicy(t, e, name, `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Action":"iam:ListUsers","Resource":"*"},
		{"Effect":"Allow","Action":"iam:GetUser","Resource":"`+e.userARN(name)+`"}]}`)
	if now := e.publishedKey(t, cr); now.ID != key.ID {
		t.Errorf("the key changed from %s to %s across the switches", key.ID, now.ID)
	}
	if got := e.events.reasons(corev1.EventTypeNormal); !slices.Contains(got, "PolicyDeleted") {
		t.Errorf("Events %v, want a PolicyDeleted", got)
	}
}

func mintSplitSwitch(t *testing.T, e *env) {
	small := []leashv1.StatementEntry{allow("*", "iam:ListUsers")}
	split := splitEntries() // iam:ListUsers in one statement, iam:ListPolicies in the other
	one := []leashv1.StatementEntry{split[0], allow("*", "iam:ListPolicies")}
	cr := mintRequest(t, "big", small...)
	e.ready(t, cr)
	name := userName("unit", "apps", "big", string(cr.UID))
	key := e.publishedKey(t, cr)
	u := mintedUser{name: name, policyARNs: "arn:aws:iam::" + e.account + ":policy/leash/unit/"}
	parts := []string{u.partARN(0), u.partARN(1)}

	steps := []struct {
		name    string
		entries []leashv1.StatementEntry
		// managed are the managed policies the user has; none is inline.
		managed []string
		note    string
	}{
		{"inline to split", split, parts, "policy split across 2 managed policies"},
		{"split to one managed policy", one, parts[:1], ""},
		{"one managed policy to split", split, parts, "policy split across 2 managed policies"},
		{"split to inline", small, nil, ""},
	}
	// Between any two calls of a sync the key keeps every statement that is
	// in the request both before and after it.
	own := iamclient.New(iamclient.Config{Endpoint: e.local.URL, Credentials: key.Provider(), HTTPClient: iamclient.NewHTTPClient(1)})
	var kept []string
	lost := map[string]bool{}
	e.watch.set(func() {
		for _, action := range kept {
			var err error
			switch action {
			case "iam:ListUsers":
				_, err = own.ListUsers(e.ctx, "/")
			case "iam:ListPolicies":
				_, err = own.ListPolicies(e.ctx, "/")
			}
			if err != nil {
				lost[action] = true
			}
		}
	})
	defer e.watch.set(nil)
	for _, step := range steps {
		kept = []string{"iam:ListUsers"}
		if step.name == "split to one managed policy" || step.name == "one managed policy to split" {
			kept = append(kept, "iam:ListPolicies")
		}
		setEntries(t, cr, step.entries...)
		out := e.ready(t, cr)
		for action := range lost {
			t.Errorf("%s: the key was denied %s between two calls of the sync, though the request holds it before and after", step.name, action)
		}
		clear(lost)
		if out.PolicyNote != step.note {
			t.Errorf("%s: policy note %q, want %q", step.name, out.PolicyNote, step.note)
		}
		attached, err := e.admin.AttachedUserPolicies(e.ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if slices.Sort(attached); !slices.Equal(attached, step.managed) {
			t.Errorf("%s: attached %v, want %v", step.name, attached, step.managed)
		}
		policies, err := e.admin.ListPolicies(e.ctx, "/leash/")
		if err != nil {
			t.Fatal(err)
		}
		var arns []string
		for _, pol := range policies {
			arns = append(arns, pol.ARN)
			if pol.Attachments != 1 {
				t.Errorf("%s: managed policy %s attached %d times, want once, to its user", step.name, pol.ARN, pol.Attachments)
			}
		}
		if slices.Sort(arns); !slices.Equal(arns, step.managed) {
			t.Errorf("%s: managed policies %v, want %v (the ones no longer used deleted)", step.name, arns, step.managed)
		}
		inline, err := e.admin.UserPolicyNames(e.ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if wantInline := len(step.managed) == 0; (len(inline) == 1) != wantInline || len(inline) > 1 {
			t.Errorf("%s: inline policies %v, want one only when there is no managed policy", step.name, inline)
		}
		if len(step.managed) > 1 {
			for _, arn := range step.managed {
				doc, err := e.admin.ManagedPolicyDocument(e.ctx, arn)
				if err != nil {
					t.Fatal(err)
				}
				if n := nonSpace(doc); n > managedPolicyLimit {
					t.Errorf("%s: part %s is %d characters, over IAM's %d", step.name, arn, n, managedPolicyLimit)
				}
			}
		}
		if now := e.publishedKey(t, cr); now.ID != key.ID {
			t.Fatalf("%s: the key changed from %s to %s", step.name, key.ID, now.ID)
		}
		kc := e.admin.WithKey(key)
		if _, err := kc.ListUsers(e.ctx, "/"); err != nil {
			t.Errorf("%s: iam:ListUsers: %v, want it allowed", step.name, err)
		}
		_, err = kc.ListPolicies(e.ctx, "/")
		if requested := step.name != "split to inline"; requested != (err == nil) {
			t.Errorf("%s: iam:ListPolicies: %v, want allowed %v", step.name, err, requested)
		}
		if _, err := kc.GetUser(e.ctx, name); err != nil {
			t.Errorf("%s: the key may not read its own user: %v", step.name, err)
		}
		if _, err := kc.CreateUser(e.ctx, iamclient.NewUser{Name: "intruder"}); !iamclient.IsAccessDenied(err) {
			t.Errorf("%s: iam:CreateUser: %v, want AccessDenied", step.name, err)
		}
		if _, err := kc.GetUser(e.ctx, localaws.AdminUser); !iamclient.IsAccessDenied(err) {
			t.Errorf("%s: iam:GetUser of another user: %v, want AccessDenied", step.name, err)
		}
	}
	if got := e.events.reasons(corev1.EventTypeNormal); count(got, "PolicyDeleted") != 3 {
		t.Errorf("Events %v, want a PolicyDeleted for each managed policy no longer used (3)", got)
	}
}

func mintRefusesTooLarge(t *testing.T, e *env) {
	tests := []struct {
		name    string
		entries []leashv1.StatementEntry
		message string
	}{
		{"one-statement", []leashv1.StatementEntry{bulkyStatement("ec2:*", 6300)},
			"spec.providerSpec.statementEntries[0]: makes a policy of "},
		{"eleven-parts", repeatStatement(bulkyStatement("ec2:Describe*", 4000), 11),
			"they need 11, over IAM's default quota of 10 managed policies attached to a user; merge statements or use wildcards"},
	}
	for _, tt := range tests {
		cr := mintRequest(t, tt.name, tt.entries...)
		out, err := e.sync(t, e.p, cr)
		if err != nil || out.Failure == nil || out.Failure.Reason != "InvalidRequest" || !strings.Contains(out.Failure.Message, tt.message) {
			t.Errorf("%s: sync error %v, failure %+v; want InvalidRequest saying %q", tt.name, err, out.Failure, tt.message)
		}
		if _, err := e.admin.GetUser(e.ctx, userName("unit", "apps", tt.name, string(cr.UID))); !iamclient.IsNotFound(err) {
			t.Errorf("%s: user of a refused request: %v, want none made", tt.name, err)
		}
	}
	if policies, err := e.admin.ListPolicies(e.ctx, "/leash/"); err != nil || len(policies) != 0 {
		t.Errorf("managed policies %+v (%v) for refused requests, want none", policies, err)
	}
}

func nonSpace(s string) int {
	n := 0
	for _, r := range s {
		if r != ' ' && r != '\n' && r != '\t' && r != '\r' {
			n++
		}
	}
	return n
}

// mintRefusesAnotherRequestsUser pins the ownership check: a user that has
// the request's name but another request's UID tag is that request's, and
// adopting it would hand its permissions to this one and delete its keys.
func mintRefusesAnotherRequestsUser(t *testing.T, e *env) {
	cr := mintRequest(t, "reader", allow("*", "iam:ListUsers"))
	name := userName("unit", "apps", "reader", string(cr.UID))
	theirs, err := e.admin.CreateUser(e.ctx, iamclient.NewUser{Name: name, Path: userPath("unit"),
		Tags: map[string]string{TagCluster: "unit", TagRequestUID: "uid-of-another-request", TagRequest: "apps/reader"}})
	if err != nil {
		t.Fatal(err)
	}
	theirKey, _, err := e.admin.CreateAccessKey(e.ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 { // a retry does not adopt it either
		out, err := e.sync(t, e.p, cr)
		if err != nil || out.Failure == nil || out.Failure.Reason != "UserNameTaken" ||
			out.Failure.Type != leashv1.CredentialsProvisionFailure || out.Provisioned {
			t.Errorf("sync: error %v, failure %+v, provisioned %v; want a UserNameTaken failure", err, out.Failure, out.Provisioned)
		}
	}
	if s := e.secret(t, cr); s != nil {
		t.Error("a Secret was written for a user this request does not own")
	}
	if ids := e.keyIDs(t, name); !slices.Equal(ids, []string{theirKey.ID}) {
		t.Errorf("the other request's keys %v, want its own %s untouched", ids, theirKey.ID)
	}
	e.actsAs(t, theirKey, theirs.ARN)
	if u, err := e.admin.GetUser(e.ctx, name); err != nil || u.Tags[TagRequestUID] != "uid-of-another-request" {
		t.Errorf("the other request's user: %+v, %v; want its tags untouched", u.Tags, err)
	}
	if inline, err := e.admin.UserPolicyNames(e.ctx, name); err != nil || len(inline) != 0 {
		t.Errorf("policies %v (%v) put on the other request's user", inline, err)
	}
}

// mintRefusesKeyOfAnotherPrincipal pins the proof's identity check. The
// user with the request's name and UID sits under another path (moved, or
// made by another tool): the user is adopted, but a key made for it acts
// as arn:...:user/moved/NAME, not the ARN the request's policy and status
// name, so it must not be published.
func mintRefusesKeyOfAnotherPrincipal(t *testing.T, e *env) {
	cr := mintRequest(t, "reader", allow("*", "iam:ListUsers"))
	name := userName("unit", "apps", "reader", string(cr.UID))
	moved, err := e.admin.CreateUser(e.ctx, iamclient.NewUser{Name: name, Path: "/moved/",
		Tags: map[string]string{TagCluster: "unit", TagRequestUID: string(cr.UID), TagRequest: "apps/reader"}})
	if err != nil {
		t.Fatal(err)
	}
	out, err := e.sync(t, e.p, cr)
	if err == nil || !strings.Contains(err.Error(), "acts as "+moved.ARN) || out.Provisioned {
		t.Errorf("sync: error %v, provisioned %v; want an error naming %s", err, out.Provisioned, moved.ARN)
	}
	if out.Failure == nil || out.Failure.Reason != "CloudError" {
		t.Errorf("failure %+v, want a CloudError", out.Failure)
	}
	if s := e.secret(t, cr); s != nil {
		t.Errorf("a key acting as %s was published", moved.ARN)
	}
	if ids := e.keyIDs(t, name); len(ids) != 0 {
		t.Errorf("keys %v left on the user, want the unproven one deleted", ids)
	}
}

// mintWaitsForPropagation runs with keys that start working a minute (of
// the test's clock) after they are made.
func mintWaitsForPropagation(t *testing.T, e *env) {
	e.clock.advance(time.Minute + time.Second) // the administrator's own key
	cr := mintRequest(t, "reader", allow("*", "iam:ListUsers"))
	name := userName("unit", "apps", "reader", string(cr.UID))

	// The clock stands still: the key never works within the proof timeout.
	out, err := e.sync(t, e.p, cr)
	if err == nil || !strings.Contains(err.Error(), "did not start working within") || out.Provisioned {
		t.Fatalf("sync: error %v, provisioned %v; want the proof to time out", err, out.Provisioned)
	}
	if s := e.secret(t, cr); s != nil {
		t.Error("a key that does not work was published")
	}
	if ids := e.keyIDs(t, name); len(ids) != 0 {
		t.Errorf("keys %v left on the user, want the unproven one deleted", ids)
	}

	// The clock moves while the proof waits: the key is published once it
	// works, not before.
	var moved atomic.Bool
	e.p.cfg.ProofTimeout = 5 * time.Second
	go func() {
		time.Sleep(300 * time.Millisecond)
		e.clock.advance(time.Minute + time.Second)
		moved.Store(true)
	}()
	e.ready(t, cr)
	if !moved.Load() {
		t.Error("the key was published before it could work")
	}
	e.actsAs(t, e.publishedKey(t, cr), e.userARN(name))
}

// wantPolicy fails the test unless the user's inline policy says what
// want says.
func wantPolicy(t *testing.T, e *env, user, want string) {
	t.Helper()
	got, err := e.admin.UserPolicy(e.ctx, user, policyName(user))
	if err != nil {
		t.Fatalf("inline policy of %s: %v", user, err)
	}
	g, err := policy.Parse([]byte(got), policy.Identity)
	if err != nil {
		t.Fatal(err)
	}
	w, err := policy.Parse([]byte(want), policy.Identity)
	if err != nil {
		t.Fatal(err)
	}
	if !policy.Equivalent(g, w) {
		t.Errorf("inline policy of %s:\n%s\nwant the same as\n%s", user, got, want)
	}
}

// largeEntries make a policy over IAM's inline limit and under the
// managed one.
func largeEntries() []leashv1.StatementEntry {
	var large []leashv1.StatementEntry
	for i := range 30 {
		large = append(large, allow(fmt.Sprintf("arn:aws:s3:::leash-unit-test-bucket-number-%03d/*", i), "s3:GetObject"))
	}
	return large
}

func sorted(ids ...string) []string {
	slices.Sort(ids)
	return ids
}

func count(list []string, s string) int {
	n := 0
	for _, x := range list {
		if x == s {
			n++
		}
	}
	return n
}

func keysOf(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
