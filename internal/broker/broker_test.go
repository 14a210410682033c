package broker

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials/endpointcreds"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	leashv1 "leash.dev/leash/api/v1"
)

// TestBroker runs the broker against a real API server and leash local:
// the SDKs' container credentials provider gets the role's session, every
// refusal is an error answer with no credentials, and the caches cost the
// API server and STS one call each.
func TestBroker(t *testing.T) {
	w := newWorld(t)
	b := w.start(t, w.brokerKube)
	w.request(t, "app-creds", "app")
	ctx := context.Background()

	t.Run("an AWS SDK given only the container credentials variables acts as the role, in a session named after the pod", func(t *testing.T) {
		pod := w.pod(t, "app-1", "app", nil)
		sdk := sdkConfig(t, b, w.token(t, "app", pod, Audience), w.aws.URL)
		creds, err := sdk.Credentials.Retrieve(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if creds.Source != endpointcreds.ProviderName {
			t.Errorf("credentials from %q, want the container provider %q", creds.Source, endpointcreds.ProviderName)
		}
		who, err := sts.NewFromConfig(sdk).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("arn:aws:sts::%s:assumed-role/%s/app-1", w.aws.AccountID(), roleName)
		if aws.ToString(who.Arn) != want {
			t.Errorf("GetCallerIdentity: %s, want %s", aws.ToString(who.Arn), want)
		}
		// The role's policy allows iam:GetRole on itself and nothing else.
		client := iam.NewFromConfig(sdk)
		if _, err := client.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String(roleName)}); err != nil {
			t.Errorf("GetRole, which the role allows: %v", err)
		}
		_, err = client.ListUsers(ctx, &iam.ListUsersInput{})
		if code := errorCode(err); code != "AccessDenied" {
			t.Errorf("ListUsers, which the role does not allow: %v (code %q), want AccessDenied", err, code)
		}
		// https://docs.aws.amazon.com/IAM/latest/UserGuide/id_session-tags.html
		calls := w.assumedFor(t, "app-1")
		if len(calls) != 1 {
			t.Fatalf("%d AssumeRole calls for app-1, want 1", len(calls))
		}
		tags := sessionTags(t, calls[0].RequestParameters)
		wantTags := map[string]string{TagNamespace: testNamespace, TagServiceAccount: "app", TagPodName: "app-1", TagPodUID: string(pod.UID), TagCluster: testCluster}
		if fmt.Sprint(tags) != fmt.Sprint(wantTags) {
			t.Errorf("session tags %v, want %v", tags, wantTags)
		}
		if got := calls[0].UserIdentity.ARN; !strings.HasSuffix(got, ":user/leash-broker") {
			t.Errorf("AssumeRole made by %s, want the broker's user", got)
		}
	})

	t.Run("an AWS SDK refused by the broker reports the refusal's code and gets no credentials", func(t *testing.T) {
		pod := w.pod(t, "nobody-1", "nobody", nil)
		sdk := sdkConfig(t, b, w.token(t, "nobody", pod, Audience), w.aws.URL)
		creds, err := sdk.Credentials.Retrieve(ctx)
		if err == nil || !strings.Contains(err.Error(), CodeNoRequest) || creds.AccessKeyID != "" {
			t.Errorf("Retrieve: key %q, error %v; want no key and an error naming %s", creds.AccessKeyID, err, CodeNoRequest)
		}
		_, err = sts.NewFromConfig(sdk).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
		if err == nil || !strings.Contains(err.Error(), CodeNoRequest) {
			t.Errorf("GetCallerIdentity: %v; want the refusal", err)
		}
	})

	t.Run("the AWS CLI and boto3 given only the container credentials variables act as the role", func(t *testing.T) {
		pod := w.pod(t, "cli-1", "app", nil)
		env := []string{
			"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(),
			EnvFullURI + "=" + b.url + CredentialsPath,
			EnvTokenFile + "=" + tokenFile(t, w.token(t, "app", pod, Audience)),
			"AWS_ENDPOINT_URL=" + w.aws.URL, "AWS_DEFAULT_REGION=us-east-1",
		}
		want := fmt.Sprintf("arn:aws:sts::%s:assumed-role/%s/cli-1", w.aws.AccountID(), roleName)
		for name, argv := range map[string][]string{
			"aws":   {"aws", "sts", "get-caller-identity", "--query", "Arn", "--output", "text"},
			"boto3": {"python3", "-c", "import boto3; print(boto3.client('sts').get_caller_identity()['Arn'])"},
		} {
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Env = env
			out, err := cmd.CombinedOutput()
			if err != nil || strings.TrimSpace(string(out)) != want {
				t.Errorf("%s: %v\n%s\nwant %s", name, err, out, want)
			}
		}
	})

	t.Run("two fetches of a pod cost one TokenReview and one AssumeRole; concurrent fetches share them", func(t *testing.T) {
		pod := w.pod(t, "cache-1", "app", nil)
		token := w.token(t, "app", pod, Audience)
		before := b.reviews.Load()
		first, second := b.fetch(t, token), b.fetch(t, "Bearer "+token)
		if first.status != http.StatusOK || second.status != http.StatusOK {
			t.Fatalf("fetches: %v; %v", first, second)
		}
		if first.creds.AccessKeyID != second.creds.AccessKeyID {
			t.Errorf("second fetch got another session")
		}
		if n := b.reviews.Load() - before; n != 1 {
			t.Errorf("%d TokenReviews for two fetches with one token, want 1", n)
		}
		if n := len(w.assumedFor(t, "cache-1")); n != 1 {
			t.Errorf("%d AssumeRole calls for two fetches, want 1", n)
		}
		t.Logf("two fetches: %d TokenReview, %d AssumeRole", b.reviews.Load()-before, len(w.assumedFor(t, "cache-1")))

		pod = w.pod(t, "burst-1", "app", nil)
		token = w.token(t, "app", pod, Audience)
		before = b.reviews.Load()
		var wg sync.WaitGroup
		keys := make([]string, 8)
		for i := range keys {
			wg.Add(1)
			go func() {
				defer wg.Done()
				keys[i] = b.fetch(t, token).creds.AccessKeyID
			}()
		}
		wg.Wait()
		for _, k := range keys {
			if k == "" || k != keys[0] {
				t.Fatalf("concurrent fetches got keys %v, want one session for all", len(keys))
			}
		}
		reviews, assumed := b.reviews.Load()-before, len(w.assumedFor(t, "burst-1"))
		if reviews != 1 || assumed != 1 {
			t.Errorf("8 concurrent fetches: %d TokenReviews, %d AssumeRole calls; want 1 and 1", reviews, assumed)
		}
		t.Logf("8 concurrent fetches: %d TokenReview, %d AssumeRole", reviews, assumed)
	})

	t.Run("a session is served until 15 minutes of its hour are left, then replaced", func(t *testing.T) {
		pod := w.pod(t, "refresh-1", "app", nil)
		token := w.token(t, "app", pod, Audience)
		first := b.fetch(t, token)
		exp, err := time.Parse(time.RFC3339, first.creds.Expiration)
		if err != nil || first.status != http.StatusOK {
			t.Fatalf("first fetch %v: %v", first, err)
		}
		if left := time.Until(exp); left < 55*time.Minute || left > time.Hour+time.Minute {
			t.Errorf("session expires in %v, want an hour (--session-duration's default)", left)
		}
		defer b.offset.Store(0)
		b.offset.Store(int64(time.Until(exp) - 16*time.Minute)) // 16 minutes left
		if a := b.fetch(t, token); a.creds.AccessKeyID != first.creds.AccessKeyID {
			t.Errorf("with 16 minutes left: status %d, another session; want the cached one", a.status)
		}
		b.offset.Store(int64(time.Until(exp) - 14*time.Minute)) // 14 minutes left
		second := b.fetch(t, token)
		if second.status != http.StatusOK || second.creds.AccessKeyID == first.creds.AccessKeyID {
			t.Errorf("with 14 minutes left: %v; want a new session", second)
		}
		if n := len(w.assumedFor(t, "refresh-1")); n != 2 {
			t.Errorf("%d AssumeRole calls, want 2: the first and the refresh", n)
		}
	})

	t.Run("refusals", func(t *testing.T) {
		refusals(t, w, b)
	})

	t.Run("a broker that may not create tokenreviews answers 503 and says which permission it lacks", func(t *testing.T) {
		nb := w.start(t, w.noReviewKube)
		pod := w.pod(t, "forbidden-1", "app", nil)
		a := nb.fetch(t, w.token(t, "app", pod, Audience))
		if a.status != http.StatusServiceUnavailable || a.err.Code != CodeReviewFailed {
			t.Errorf("answer %v, want 503 %s", a, CodeReviewFailed)
		}
		lines := nb.log.logged("TokenReview forbidden: the broker's Kubernetes identity lacks RBAC permission to create tokenreviews (authentication.k8s.io); bind it to the ClusterRole system:auth-delegator")
		if len(lines) != 1 {
			t.Errorf("log %s: want one line saying create tokenreviews is missing", nb.log)
		}
		refused := nb.log.logged("refused credentials")
		if len(refused) != 1 || refused[0]["claimedPod"] != testNamespace+"/forbidden-1" {
			t.Errorf("refusals logged %v, want one naming the pod the token claims", refused)
		}
	})
}

// refusals checks each refusal: an error answer, no credentials, a log
// line naming the pod (or, for a token the API server refused, the pod it
// claims) and the code, never the token.
func refusals(t *testing.T, w *world, b *running) {
	ctx := context.Background()
	c := w.api.Client
	w.request(t, "revoked-creds", "rev")
	w.request(t, "shared-a", "shared")
	w.request(t, "shared-b", "shared")
	w.requestFor(t, "untrusted-creds", w.untrustedARN, "untrusted")
	// A status naming a role outside the operator's path for the cluster,
	// as whoever may write a request's status could.
	w.requestFor(t, "foreign-creds", "arn:aws:iam::"+w.aws.AccountID()+":role/admin", "foreign")

	for _, tc := range []struct {
		name, pod, code string
		status          int
		// token makes the token. With change, a first fetch succeeds, then
		// change makes the next ones refusable.
		token  func(t *testing.T) string
		change func(t *testing.T)
		// logKey is the log attribute naming the pod.
		logKey string
	}{
		{name: "a pod deleted after a first fetch is refused though its review is cached", pod: "gone-1", code: CodePodGone, status: http.StatusForbidden,
			token: func(t *testing.T) string { return w.token(t, "app", w.pod(t, "gone-1", "app", nil), Audience) },
			change: func(t *testing.T) {
				if err := c.Delete(ctx, podKey("gone-1")); err != nil {
					t.Fatal(err)
				}
			}, logKey: "pod"},
		{name: "a request revoked after a first fetch is refused and its cached sessions dropped", pod: "rev-1", code: CodeRevoked, status: http.StatusForbidden,
			token: func(t *testing.T) string { return w.token(t, "rev", w.pod(t, "rev-1", "rev", nil), Audience) },
			change: func(t *testing.T) {
				cr := requestKey("revoked-creds")
				if err := c.Get(ctx, client.ObjectKeyFromObject(cr), cr); err != nil {
					t.Fatal(err)
				}
				cr.Annotations = map[string]string{annotationRevoke: time.Now().UTC().Format(time.RFC3339)}
				if err := c.Update(ctx, cr); err != nil {
					t.Fatal(err)
				}
			}, logKey: "pod"},
		{name: "a token of another audience is refused", pod: "aud-1", code: CodeTokenInvalid, status: http.StatusUnauthorized,
			token: func(t *testing.T) string {
				return w.token(t, "app", w.pod(t, "aud-1", "app", nil), "sts.amazonaws.com")
			},
			logKey: "claimedPod"},
		{name: "a token not bound to a pod is refused", pod: "", code: CodeTokenNotBound, status: http.StatusForbidden,
			token: func(t *testing.T) string { return w.token(t, "app", nil, Audience) }},
		{name: "a service account no Broker request names is refused", pod: "stranger-1", code: CodeNoRequest, status: http.StatusForbidden,
			token: func(t *testing.T) string {
				return w.token(t, "stranger", w.pod(t, "stranger-1", "stranger", nil), Audience)
			},
			logKey: "pod"},
		{name: "a service account two Broker requests name, on a pod that picks neither, is refused", pod: "shared-1", code: CodeAmbiguousRequest, status: http.StatusForbidden,
			token:  func(t *testing.T) string { return w.token(t, "shared", w.pod(t, "shared-1", "shared", nil), Audience) },
			logKey: "pod"},
		{name: "a pod whose credentials-injected names a request that does not serve it is refused", pod: "shared-2", code: CodeNoRequest, status: http.StatusForbidden,
			token: func(t *testing.T) string {
				return w.token(t, "shared", w.pod(t, "shared-2", "shared", map[string]string{annotationInjected: testNamespace + "/app-creds"}), Audience)
			},
			logKey: "pod"},
		{name: "a role STS will not let the broker assume is a 500, with no credentials", pod: "untrusted-1", code: CodeAssumeRoleFailed, status: http.StatusInternalServerError,
			token: func(t *testing.T) string {
				return w.token(t, "untrusted", w.pod(t, "untrusted-1", "untrusted", nil), Audience)
			},
			logKey: "pod"},
		{name: "a request whose status.principal is not a role leash makes for the cluster is refused", pod: "foreign-1", code: CodeForeignRole, status: http.StatusForbidden,
			token: func(t *testing.T) string {
				return w.token(t, "foreign", w.pod(t, "foreign-1", "foreign", nil), Audience)
			},
			logKey: "pod"},
		{name: "no token is refused", code: CodeTokenMissing, status: http.StatusUnauthorized,
			token: func(*testing.T) string { return "" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			token := tc.token(t)
			var uid types.UID
			if tc.change != nil {
				if a := b.fetch(t, token); a.status != http.StatusOK {
					t.Fatalf("first fetch: %v", a)
				}
				reviews := b.reviews.Load()
				uid = b.reviewedPod(token)
				tc.change(t)
				// The broker learns of the change through its watch.
				deadline := time.Now().Add(10 * time.Second)
				for b.fetch(t, token).status == http.StatusOK && time.Now().Before(deadline) {
					time.Sleep(20 * time.Millisecond)
				}
				if n := b.reviews.Load() - reviews; n != 0 {
					t.Errorf("%d TokenReviews after the change; want the cached review", n)
				}
			}
			a := b.fetch(t, token)
			if a.status != tc.status || a.err.Code != tc.code || a.contentType != "application/json" {
				t.Errorf("answer %v, want %d with code %s", a, tc.status, tc.code)
			}
			if strings.Contains(a.body, "AccessKeyId") || strings.Contains(a.body, "ASIA") {
				t.Errorf("refusal carries credentials: %v", a)
			}
			if token != "" && strings.Contains(b.log.String(), token) {
				t.Fatal("the log holds the token")
			}
			switch tc.code {
			case CodeRevoked:
				if n := b.cachedSessions(func(k sessionKey) bool { return k.role == w.roleARN }); n != 0 {
					t.Errorf("%d sessions of the revoked request's role still cached", n)
				}
			case CodePodGone:
				if n := b.cachedSessions(func(k sessionKey) bool { return k.pod == uid }); n != 0 {
					t.Errorf("%d sessions of the deleted pod still cached", n)
				}
			}
			if tc.logKey == "" {
				return
			}
			for _, line := range b.log.logged("refused credentials") {
				if line["code"] == tc.code && line[tc.logKey] == testNamespace+"/"+tc.pod {
					return
				}
			}
			t.Errorf("no refusal logged with %s %s/%s and code %s:\n%s", tc.logKey, testNamespace, tc.pod, tc.code, b.log)
		})
	}

	t.Run("a pod whose credentials-injected picks one of two Broker requests gets its role", func(t *testing.T) {
		pod := w.pod(t, "shared-3", "shared", map[string]string{annotationInjected: testNamespace + "/shared-b"})
		if a := b.fetch(t, w.token(t, "shared", pod, Audience)); a.status != http.StatusOK {
			t.Errorf("answer %v, want the session", a)
		}
	})
}

// sdkConfig is an AWS SDK configuration as a pod wired to the broker loads
// it: the container credentials variables and nothing else, STS and IAM at
// leash local.
func sdkConfig(t *testing.T, b *running, token, endpoint string) aws.Config {
	t.Helper()
	for _, v := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_ROLE_ARN",
		"AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_CONTAINER_AUTHORIZATION_TOKEN"} {
		t.Setenv(v, "")
	}
	none := filepath.Join(t.TempDir(), "none")
	t.Setenv("AWS_CONFIG_FILE", none)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", none)
	t.Setenv(EnvFullURI, b.url+CredentialsPath)
	t.Setenv(EnvTokenFile, tokenFile(t, token))
	cfg, err := config.LoadDefaultConfig(context.Background(), config.WithRegion("us-east-1"), config.WithBaseEndpoint(endpoint))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// sessionTags reads the tags of an AssumeRole record's requestParameters.
func sessionTags(t *testing.T, params json.RawMessage) map[string]string {
	t.Helper()
	var p struct {
		Tags []struct {
			Key   string `json:"key"`
			Value string `json:"value"`
		} `json:"tags"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		t.Fatalf("requestParameters %s: %v", params, err)
	}
	out := map[string]string{}
	for _, tag := range p.Tags {
		out[tag.Key] = tag.Value
	}
	return out
}

func errorCode(err error) string {
	var api smithy.APIError
	if errors.As(err, &api) {
		return api.ErrorCode()
	}
	return ""
}

func podKey(name string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: testNamespace, Name: name}}
}

func requestKey(name string) *leashv1.CredentialsRequest {
	return &leashv1.CredentialsRequest{ObjectMeta: metav1.ObjectMeta{Namespace: testNamespace, Name: name}}
}

// cachedSessions counts the cached sessions whose key matches.
func (r *running) cachedSessions(match func(sessionKey) bool) int {
	r.sessions.mu.Lock()
	defer r.sessions.mu.Unlock()
	n := 0
	for k := range r.sessions.cached {
		if match(k) {
			n++
		}
	}
	return n
}

// reviewedPod is the UID of the pod a token is bound to, as the broker's
// cached review holds it.
func (r *running) reviewedPod(token string) types.UID {
	rv := r.Broker.reviews
	rv.mu.Lock()
	defer rv.mu.Unlock()
	return rv.accepted[sha256.Sum256([]byte(token))].id.PodUID
}
