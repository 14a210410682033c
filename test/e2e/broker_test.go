package e2e

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/broker"
	"leash.dev/leash/internal/operator"
)

// TestBrokerServesAPodEndToEnd: a request in Broker mode, made and proven
// by the operator on a real API server; a TokenRequest token of the pod's
// service account for the broker's audience, bound to the pod; the broker
// as its own process; and the AWS SDKs for Go and JavaScript v3, the AWS
// CLI and boto3, each given only AWS_CONTAINER_CREDENTIALS_FULL_URI and
// AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE (besides the endpoint and the
// Region), get a session of the request's role named after the pod, and are
// refused what the request does not grant. Once the pod is deleted, the
// same token gets no credentials.
func TestBrokerServesAPodEndToEnd(t *testing.T) {
	w := newBrokerWorld(t, clusterOptions{})
	cl, ctx, tr, pod := w.cl, context.Background(), w.token, w.pod
	const ns, sa, podName = brokerNS, brokerSA, brokerPod
	brokerARN := w.brokerARN

	credsURL, logs := startBroker(t, cl, w.brokerCreds)
	wantARN := w.wantARN()

	// Each client with only the container credentials variables.
	podEnv := w.env(t, credsURL)
	t.Run("aws-sdk-go-v2", func(t *testing.T) {
		for _, kv := range podEnv {
			name, value, _ := strings.Cut(kv, "=")
			t.Setenv(name, value)
		}
		for _, name := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"} {
			t.Setenv(name, "")
			_ = os.Unsetenv(name)
		}
		t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
		t.Setenv("AWS_CONFIG_FILE", filepath.Join(t.TempDir(), "none"))
		cfg, err := config.LoadDefaultConfig(ctx)
		if err != nil {
			t.Fatal(err)
		}
		id, err := sts.NewFromConfig(cfg).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
		if err != nil || aws.ToString(id.Arn) != wantARN {
			t.Fatalf("GetCallerIdentity: %v, %v; want %s", aws.ToString(id.Arn), err, wantARN)
		}
		if _, err := iam.NewFromConfig(cfg).ListRoles(ctx, &iam.ListRolesInput{}); err != nil {
			t.Errorf("ListRoles, which the request grants: %v", err)
		}
		if _, err := iam.NewFromConfig(cfg).ListUsers(ctx, &iam.ListUsersInput{}); apiErrCode(err) != "AccessDenied" {
			t.Errorf("ListUsers, which the request does not grant: %v; want AccessDenied", err)
		}
	})
	clients := []struct {
		name             string
		identity, denied []string
	}{
		{"aws-cli", []string{"aws", "sts", "get-caller-identity", "--query", "Arn", "--output", "text"}, []string{"aws", "iam", "list-users"}},
		{"boto3", []string{"python3", "-c", "import boto3; print(boto3.client('sts').get_caller_identity()['Arn'])"},
			[]string{"python3", "-c", "import boto3; boto3.client('iam').list_users()"}},
		// hack/setup.sh installs jsclient's packages.
		{"aws-sdk-js-v3", []string{"node", filepath.Join("jsclient", "client.mjs"), "identity"}, []string{"node", filepath.Join("jsclient", "client.mjs"), "list-users"}},
	}
	for _, c := range clients {
		t.Run(c.name, func(t *testing.T) {
			out, err := runClient(podEnv, c.identity...)
			if err != nil || strings.TrimSpace(out) != wantARN {
				t.Fatalf("%s: %v\n%s\nwant %s", strings.Join(c.identity, " "), err, out, wantARN)
			}
			if out, err := runClient(podEnv, c.denied...); err == nil || !strings.Contains(out, "AccessDenied") {
				t.Errorf("%s: %v\n%s\nwant AccessDenied", strings.Join(c.denied, " "), err, out)
			}
		})
	}

	// Every session the broker made carries the pod's tags: leash audit
	// finds the AssumeRole and its tags in leash local's log.
	assumes, _ := runLeash(t, "audit", "--data", cl.dataDir, "--output", "json", "--principal", brokerARN)
	for _, tag := range []string{`{"key":"kubernetes-pod-name","value":"` + podName + `"}`, `{"key":"kubernetes-namespace","value":"` + ns + `"}`,
		`{"key":"kubernetes-service-account","value":"` + sa + `"}`} {
		if !strings.Contains(assumes, tag) {
			t.Errorf("the broker's AssumeRole records lack tag %s:\n%s", tag, assumes)
		}
	}

	// The pod deleted: its token gets no credentials, and the refusal is
	// logged with the pod's name and without the token.
	if err := cl.c.Delete(ctx, pod); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the broker to refuse the deleted pod", func() (bool, string) {
		out, err := runClient(podEnv, clients[0].identity...)
		return err != nil && !strings.Contains(out, "assumed-role"), out
	})
	if !strings.Contains(logs.String(), podName) || strings.Contains(logs.String(), tr.Status.Token) {
		t.Errorf("broker log: want the pod's name and never its token:\n%s", logs.String())
	}
}

// TestBrokerClientsRefreshAcrossAnExpiry: sessions of the shortest
// duration STS allows (15 minutes), issued by a leash local whose clock is
// 14 minutes behind, so that each Expiration a client reads is a minute
// away. The AWS SDKs for Go and JavaScript v3 and boto3, each one process
// calling GetCallerIdentity every 5 seconds for 80 seconds, pass that
// Expiration, fetch again from the broker (which makes a new session when
// less than a quarter of its duration is left), and never see an error;
// the AWS CLI fetches at each run.
func TestBrokerClientsRefreshAcrossAnExpiry(t *testing.T) {
	w := newBrokerWorld(t, clusterOptions{clockOffset: -14 * time.Minute})
	credsURL, _ := startBroker(t, w.cl, w.brokerCreds, "--session-duration", "15m")
	env, want := w.env(t, credsURL), w.wantARN()
	const calls, every = 17, 5 * time.Second
	loops := map[string][]string{
		"boto3":         {"python3", "-c", fmt.Sprintf("import boto3, time\nc = boto3.client('sts')\nfor i in range(%d):\n    print(c.get_caller_identity()['Arn'], flush=True)\n    time.sleep(%d)", calls, int(every.Seconds()))},
		"aws-sdk-js-v3": {"node", filepath.Join("jsclient", "client.mjs"), "identity-loop", fmt.Sprint(calls), fmt.Sprint(int(every.Seconds()))},
	}
	// Each long-running client is its own pod, so that the sessions the
	// broker issued for its pod show that it fetched again.
	podOf := map[string]string{"boto3": "exporter-py", "aws-sdk-js-v3": "exporter-js"}
	results := make(chan string, len(loops)+1)
	for name, args := range loops {
		_, _, tokenFile := w.podWithToken(t, podOf[name])
		env := append(slices.Clone(env), "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE="+tokenFile)
		want := strings.TrimSuffix(want, brokerPod) + podOf[name]
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, args[0], args[1:]...)
			cmd.Env = env
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			lines := strings.Split(strings.TrimSpace(string(out)), "\n")
			switch {
			case err != nil:
				results <- fmt.Sprintf("%s: %v\n%s", name, err, stderr.String())
			case len(lines) != calls || slices.ContainsFunc(lines, func(l string) bool { return l != want }):
				results <- fmt.Sprintf("%s: printed\n%s\nwant %d lines of %s", name, out, calls, want)
			default:
				results <- ""
			}
		}()
	}
	go func() {
		for _, kv := range env {
			name, value, _ := strings.Cut(kv, "=")
			t.Setenv(name, value)
		}
		for _, name := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"} {
			_ = os.Unsetenv(name)
		}
		results <- goLoop(want, calls, every)
	}()
	for range len(loops) + 1 {
		if r := <-results; r != "" {
			t.Error(r)
		}
	}
	if out, err := runClient(env, "aws", "sts", "get-caller-identity", "--query", "Arn", "--output", "text"); err != nil || out != want {
		t.Errorf("aws sts get-caller-identity after the first sessions' Expiration: %v\n%s", err, out)
	}
	// More than one session was issued for each client's pod: each fetched
	// again past an Expiration. (The Go client is brokerPod, whose count
	// also holds the CLI's one fetch: it must exceed 2.)
	out, _ := runLeash(t, "audit", "--data", w.cl.dataDir, "--output", "json", "--principal", w.brokerARN)
	for pod, least := range map[string]int{brokerPod: 3, podOf["boto3"]: 2, podOf["aws-sdk-js-v3"]: 2} {
		if n := strings.Count(out, `"roleSessionName":"`+pod+`"`); n < least {
			t.Errorf("%d sessions issued for pod %s over %v of 15-minute sessions a minute from their Expiration; want at least %d", n, pod, calls*every, least)
		}
	}
}

// goLoop is the AWS SDK for Go as a long-running pod: one config, its
// credentials cached and refreshed by the SDK, calling GetCallerIdentity
// every interval; "" when every call answered want.
func goLoop(want string, calls int, every time.Duration) string {
	ctx := context.Background()
	cfg, err := config.LoadDefaultConfig(ctx, config.WithSharedCredentialsFiles([]string{os.DevNull}), config.WithSharedConfigFiles([]string{os.DevNull}))
	if err != nil {
		return "aws-sdk-go-v2: " + err.Error()
	}
	c := sts.NewFromConfig(cfg)
	for i := range calls {
		id, err := c.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
		if err != nil || aws.ToString(id.Arn) != want {
			return fmt.Sprintf("aws-sdk-go-v2: call %d: %v %v; want %s", i+1, aws.ToString(id.Arn), err, want)
		}
		time.Sleep(every)
	}
	return ""
}

// The request, service account and pod the broker tests serve.
const brokerNS, brokerSA, brokerPod = "reports", "report-exporter", "exporter-7d9f"

// brokerWorld is a Broker request made Ready by the operator, its pod, and
// the pod's token in a file, with the broker's own AWS identity (a user of
// leash local) in a credentials file.
type brokerWorld struct {
	cl                                *cluster
	brokerARN, brokerCreds, tokenFile string
	role                              string
	pod                               *corev1.Pod
	token                             *authenticationv1.TokenRequest
}

func newBrokerWorld(t *testing.T, o clusterOptions) *brokerWorld {
	t.Helper()
	cl := newCluster(t, o)
	ctx := context.Background()
	const ns, sa, podName = brokerNS, brokerSA, brokerPod
	cl.namespace(t, ns)

	// The broker's AWS identity: a user allowed to assume roles and tag
	// sessions, with a key in its own credentials file.
	if _, err := cl.admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("leash-broker")}); err != nil {
		t.Fatal(err)
	}
	if _, err := cl.admin.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: aws.String("leash-broker"), PolicyName: aws.String("assume"),
		PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["sts:AssumeRole","sts:TagSession"],"Resource":"*"}]}`)}); err != nil {
		t.Fatal(err)
	}
	k, err := cl.admin.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{UserName: aws.String("leash-broker")})
	if err != nil {
		t.Fatal(err)
	}
	brokerCreds := filepath.Join(t.TempDir(), "credentials")
	if err := os.WriteFile(brokerCreds, []byte(fmt.Sprintf("[default]\naws_access_key_id = %s\naws_secret_access_key = %s\n",
		aws.ToString(k.AccessKey.AccessKeyId), aws.ToString(k.AccessKey.SecretAccessKey))), 0o600); err != nil {
		t.Fatal(err)
	}
	brokerARN := "arn:aws:iam::" + account + ":user/leash-broker"

	stop, _ := cl.runOperator(t, cl.operatorOptions(operator.Config{BrokerPrincipal: brokerARN, AdminNamespaces: []string{ns}}))
	t.Cleanup(stop)
	cr := request(t, ns, "exporter", ns, "- effect: Allow\n  action: [\"iam:ListRoles\"]\n  resource: \"*\"\n")
	cr.Annotations = map[string]string{operator.AnnotationMode: string(leashv1.ModeBroker)}
	cr.Spec.ServiceAccountNames = []string{sa}
	cl.create(t, cr)
	role := cl.waitReady(t, ns, "exporter").Status.Principal

	// The pod (no kubelet runs: the object is what the token is bound to)
	// and its token, as the kubelet would request it for the volume the
	// webhook adds.
	cl.api.ServiceAccounts(t, ns, sa)
	w := &brokerWorld{cl: cl, brokerARN: brokerARN, brokerCreds: brokerCreds, role: role}
	w.pod, w.token, w.tokenFile = w.podWithToken(t, podName)
	return w
}

// podWithToken creates a pod of the request's service account and writes
// its token, as the kubelet requests it for the volume the webhook adds.
func (w *brokerWorld) podWithToken(t *testing.T, name string) (*corev1.Pod, *authenticationv1.TokenRequest, string) {
	t.Helper()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: brokerNS, Name: name},
		Spec: corev1.PodSpec{ServiceAccountName: brokerSA, Containers: []corev1.Container{{Name: "app", Image: "app:1"}}}}
	w.cl.create(t, pod)
	tr := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{Audiences: []string{broker.Audience},
		ExpirationSeconds: aws.Int64(broker.TokenExpirationSeconds),
		BoundObjectRef:    &authenticationv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: pod.Name, UID: pod.UID}}}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: brokerNS, Name: brokerSA}}
	if err := w.cl.c.SubResource("token").Create(context.Background(), sa, tr); err != nil {
		t.Fatalf("TokenRequest: %v", err)
	}
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(tr.Status.Token), 0o600); err != nil {
		t.Fatal(err)
	}
	return pod, tr, tokenFile
}

// env is exactly what a pod's client is given: the container credentials
// variables, leash local's endpoint and the Region.
func (w *brokerWorld) env(t *testing.T, credsURL string) []string {
	return []string{"AWS_CONTAINER_CREDENTIALS_FULL_URI=" + credsURL, "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE=" + w.tokenFile,
		"AWS_ENDPOINT_URL=" + w.cl.url, "AWS_DEFAULT_REGION=us-east-1", "AWS_REGION=us-east-1",
		"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
}

// wantARN is the ARN of the pod's sessions.
func (w *brokerWorld) wantARN() string {
	return "arn:aws:sts::" + account + ":assumed-role/" + roleName(w.role) + "/" + brokerPod
}

// startBroker runs `leash broker` against the cluster and leash local on a
// free loopback port until the test ends, and returns its credentials URL
// and its log.
func startBroker(t *testing.T, cl *cluster, credentials string, args ...string) (string, *syncBuffer) {
	t.Helper()
	b := runBroker(t, cl, credentials, nil, args...)
	return "http://" + b.addr + broker.CredentialsPath, b.logs
}

// brokerProcess is one `leash broker` process.
type brokerProcess struct {
	addr string
	logs *syncBuffer
	cmd  *exec.Cmd
}

// runBroker starts `leash broker` on a free loopback port, and returns once
// it is ready (over TLS when ca, the CA of its --tls-cert-file, is given).
func runBroker(t *testing.T, cl *cluster, credentials string, ca *x509.CertPool, args ...string) *brokerProcess {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	logs := &syncBuffer{}
	cmd := exec.Command(leashBin, append([]string{"broker", "--listen", addr, "--endpoint", cl.url, "--cluster-name", "e2e",
		"--kubeconfig", cl.api.Kubeconfig(t, "leash-broker")}, args...)...)
	cmd.Env = append(os.Environ(), "AWS_SHARED_CREDENTIALS_FILE="+credentials, "AWS_REGION=us-east-1")
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	scheme, hc := "http", http.DefaultClient
	if ca != nil {
		scheme, hc = "https", &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ca, MinVersion: tls.VersionTLS12}}}
	}
	waitFor(t, time.Minute, "leash broker to be ready", func() (bool, string) {
		resp, err := hc.Get(scheme + "://" + addr + "/readyz")
		if err != nil {
			return false, err.Error() + "\n" + logs.String()
		}
		_ = resp.Body.Close()
		return resp.StatusCode == http.StatusOK, resp.Status
	})
	return &brokerProcess{addr: addr, logs: logs, cmd: cmd}
}

// runClient runs a client with exactly env, and returns its last line of
// standard output, or on failure its standard error (node warns there of
// versions, and the clients print refusals there).
func runClient(env []string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Env = env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return stderr.String(), err
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return lines[len(lines)-1], nil
}
