package workload

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	leashv1 "leash.dev/leash/api/v1"
)

func readGood(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "good.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func check(t *testing.T, manifests string) []string {
	t.Helper()
	s, err := Parse("m.yaml", []byte(manifests))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, f := range Check(s) {
		ids = append(ids, f.ID)
	}
	return ids
}

// Each finding has a manifest that has it (the good set with one change)
// and one that does not (the good set).
func TestEachFinding(t *testing.T) {
	good := readGood(t)
	if ids := check(t, good); len(ids) != 0 {
		t.Fatalf("the good manifests have findings %v", ids)
	}
	sts, stsGood := stsManifests(t)
	tests := []struct {
		name, manifests, want string
	}{
		{"host network on a pod with leash credentials, which its NetworkPolicy does not govern", strings.Replace(good, "      containers:", "      hostNetwork: true\n      containers:", 1), "LEASH-WL-001,LEASH-WL-006"},
		{"IMDS not disabled", strings.Replace(good, `value: "true"`, `value: "false"`, 1), "LEASH-WL-002"},
		{"IMDS variable missing", strings.Replace(good, "        - {name: AWS_EC2_METADATA_DISABLED, value: \"true\"}\n", "", 1), "LEASH-WL-002"},
		{"credentials file outside the mounted Secret", strings.Replace(good, "/etc/aws-credentials/credentials}", "/root/.aws/credentials}", 1), "LEASH-WL-003"},
		{"credentials file variable missing", strings.Replace(good, "        - {name: AWS_SHARED_CREDENTIALS_FILE, value: /etc/aws-credentials/credentials}\n", "", 1), "LEASH-WL-003"},
		{"a Secret no request writes", strings.Replace(good, "secret: {secretName: ccm-credentials}", "secret: {secretName: aws-other}", 1), "LEASH-WL-004"},
		{"STS without a projected token", sts, "LEASH-WL-005"},
		{"a request leash makes a role for (leash.dev/mode: STS) without a projected token", strings.Replace(good, "metadata: {name: ccm, namespace: kube-system}", "metadata: {name: ccm, namespace: kube-system, annotations: {leash.dev/mode: STS}}", 1), "LEASH-WL-005"},
		{"STS token with the wrong audience", strings.Replace(stsGood, "audience: sts.amazonaws.com", "audience: kubernetes", 1), "LEASH-WL-005"},
		{"STS token at another path than cloudTokenPath", strings.Replace(stsGood, "path: token}", "path: aws-token}", 1), "LEASH-WL-005"},
		{"no egress policy", good[:strings.Index(good, "---\napiVersion: networking.k8s.io/v1")], "LEASH-WL-006"},
		{"an egress policy that lets HTTP reach the metadata service", strings.Replace(good, "except: [169.254.169.254/32]", "except: []", 1) + "  - ports: [{protocol: TCP, port: 80}]\n    to:\n    - ipBlock: {cidr: 169.254.0.0/16}\n", "LEASH-WL-006"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ids := check(t, tt.manifests)
			if strings.Join(ids, ",") != tt.want {
				t.Errorf("findings %v, want exactly %s", ids, tt.want)
			}
		})
	}
	if ids := check(t, stsGood); len(ids) != 0 {
		t.Errorf("the good STS manifests have findings %v", ids)
	}
}

// TestTokenFollowsTheClusterMode pins that whether a request needs a
// projected token is the operator's decision (reqmode): in a Mint cluster a
// request with stsIAMRoleARN gets a key and needs none; in an STS cluster
// every request needs one; a request's leash.dev/mode overrides both.
func TestTokenFollowsTheClusterMode(t *testing.T) {
	good := readGood(t)
	withRole := strings.Replace(good, "    statementEntries:", "    stsIAMRoleARN: arn:aws:iam::111122223333:role/ccm\n    statementEntries:", 1)
	annotated := func(m, mode string) string {
		return strings.Replace(m, "metadata: {name: ccm, namespace: kube-system}", "metadata: {name: ccm, namespace: kube-system, annotations: {leash.dev/mode: "+mode+"}}", 1)
	}
	for _, tt := range []struct {
		name, manifests string
		cluster         leashv1.CredentialsMode
		want            string
	}{
		{"a role in a Mint cluster is minted a key: no token needed", withRole, leashv1.ModeMint, ""},
		{"a role in a Manual cluster is STS", withRole, leashv1.ModeManual, "LEASH-WL-005"},
		{"any request in an STS cluster", good, leashv1.ModeSTS, "LEASH-WL-005"},
		{"leash.dev/mode: Mint in an STS cluster", annotated(good, "Mint"), leashv1.ModeSTS, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse("m.yaml", []byte(tt.manifests))
			if err != nil {
				t.Fatal(err)
			}
			s.Mode = tt.cluster
			var ids []string
			for _, f := range Check(s) {
				ids = append(ids, f.ID)
			}
			if strings.Join(ids, ",") != tt.want {
				t.Errorf("findings %v, want %q", ids, tt.want)
			}
		})
	}
}

func TestSuggestExcludesIMDS(t *testing.T) {
	good := readGood(t)
	noPolicy := good[:strings.Index(good, "---\napiVersion: networking.k8s.io/v1")]
	s, err := Parse("m.yaml", []byte(noPolicy))
	if err != nil {
		t.Fatal(err)
	}
	suggestion, err := Suggest(s.Pods[0])
	if err != nil {
		t.Fatal(err)
	}
	if ids := check(t, noPolicy+"---\n"+string(suggestion)); len(ids) != 0 {
		t.Errorf("with the suggested policy: findings %v\n%s", ids, suggestion)
	}
}
