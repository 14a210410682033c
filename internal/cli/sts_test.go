package cli

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"

	"leash.dev/leash/internal/oidcissuer"
	"leash.dev/leash/localaws"
	"leash.dev/leash/localaws/localtest"
)

func TestCreateIssuerRefusesBadInput(t *testing.T) {
	cases := []struct {
		name   string
		args   []string
		errHas string
	}{
		{name: "no --out", args: []string{"--issuer-url", "https://oidc.example.com"}, errHas: "--out: is required"},
		{name: "no issuer", args: []string{}, errHas: "--issuer-url"},
		{name: "http issuer", args: []string{"--issuer-url", "http://oidc.example.com"}, errHas: "--issuer-url: issuer URL \"http://oidc.example.com\": the scheme must be https"},
		{name: "issuer with a query", args: []string{"--issuer-url", "https://oidc.example.com/?x=1"}, errHas: "has a query"},
		{name: "issuer with a fragment", args: []string{"--issuer-url", "https://oidc.example.com/p#x"}, errHas: "has a fragment"},
		{name: "issuer and bucket", args: []string{"--issuer-url", "https://oidc.example.com", "--bucket", "b-1", "--region", "eu-west-1"}, errHas: "not both"},
		{name: "bucket without region", args: []string{"--bucket", "my-oidc"}, errHas: "give both"},
		{name: "bucket with dots", args: []string{"--bucket", "my.oidc", "--region", "eu-west-1"}, errHas: "--bucket my.oidc"},
		{name: "not a region", args: []string{"--bucket", "my-oidc", "--region", "europe"}, errHas: "--region europe"},
		{name: "name with an issuer URL", args: []string{"--name", "prod", "--issuer-url", "https://oidc.example.com"}, errHas: "--name: names the issuer's bucket"},
		{name: "name that makes no bucket name", args: []string{"--name", "Prod", "--region", "eu-west-1"}, errHas: "--name Prod"},
		{name: "name without region", args: []string{"--name", "prod"}, errHas: "give both"},
		{name: "lifetime under ten minutes", args: []string{"--issuer-url", "https://oidc.example.com", "--max-token-lifetime", "5m"}, errHas: "--max-token-lifetime"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "issuer")
			args := append([]string{"sts", "create-issuer"}, c.args...)
			if c.name != "no --out" {
				args = append(args, "--out", dir)
			}
			out, stderr, code := run(t, args...)
			if code != ExitBadInput || !strings.Contains(stderr, c.errHas) {
				t.Fatalf("exit %d, stderr %q; want 2 naming %q\n%s", code, stderr, c.errHas, out)
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("the refused run made %s (%v)", dir, err)
			}
		})
	}
}

func TestCreateIssuerPrintsTheAPIServerFlagsAndNoPrivateKey(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "issuer")
	out, stderr, code := run(t, "sts", "create-issuer", "--bucket", "my-cluster-oidc", "--region", "eu-west-1", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	is, err := oidcissuer.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	const url = "https://my-cluster-oidc.s3.eu-west-1.amazonaws.com"
	if is.URL != url {
		t.Errorf("issuer %s, want %s", is.URL, url)
	}
	for _, f := range append(oidcissuer.APIServerFlags(dir, is), "aws s3 sync "+dir+"/public s3://my-cluster-oidc/", "leash sts create-provider --oidc-issuer "+url) {
		if !strings.Contains(out, f) {
			t.Errorf("output lacks %q:\n%s", f, out)
		}
	}
	key, err := os.ReadFile(oidcissuer.PrivateKeyFile(dir, is.SigningKey().ID))
	if err != nil {
		t.Fatal(err)
	}
	body := strings.Split(string(key), "\n")[1]
	if strings.Contains(out+stderr, body) {
		t.Errorf("the private key was printed")
	}

	again, stderr, code := run(t, "sts", "create-issuer", "--bucket", "my-cluster-oidc", "--region", "eu-west-1", "--out", dir)
	if code != 0 || !strings.Contains(again, "nothing changed") {
		t.Errorf("again: exit %d, %q %q; want a no-op that says so", code, again, stderr)
	}
	if _, stderr, code := run(t, "sts", "create-issuer", "--issuer-url", "https://other.example.com", "--out", dir); code != ExitBadInput || !strings.Contains(stderr, "already holds the issuer "+url) {
		t.Errorf("another issuer in the folder: exit %d, %q", code, stderr)
	}
	// rotate-key knows the bucket from the issuer URL.
	if rotated, stderr, code := run(t, "sts", "rotate-key", "--out", dir); code != 0 || !strings.Contains(rotated, "aws s3 sync "+dir+"/public s3://my-cluster-oidc/") {
		t.Errorf("rotate-key of a bucket's issuer: exit %d, %q %q; want the aws s3 sync line", code, rotated, stderr)
	}
}

// TestCreateIssuerNamedAfterTheCluster: --name CLUSTER makes the issuer
// the bucket CLUSTER-oidc, unless --bucket names another.
func TestCreateIssuerNamedAfterTheCluster(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--name", "prod", "--region", "eu-west-1"}, "https://prod-oidc.s3.eu-west-1.amazonaws.com"},
		{[]string{"--name", "prod", "--bucket", "shared-issuers", "--region", "eu-west-1"}, "https://shared-issuers.s3.eu-west-1.amazonaws.com"},
	} {
		dir := filepath.Join(t.TempDir(), "issuer")
		if _, stderr, code := run(t, append([]string{"sts", "create-issuer", "--out", dir}, tt.args...)...); code != 0 {
			t.Fatalf("%v: exit %d: %s", tt.args, code, stderr)
		}
		if is, err := oidcissuer.Load(dir); err != nil || is.URL != tt.want {
			t.Errorf("%v: issuer %q (%v), want %s", tt.args, is.URL, err, tt.want)
		}
	}
}

func TestRotateKeyPruneIsRefusedUntilTheTokensExpire(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "issuer")
	if _, stderr, code := run(t, "sts", "create-issuer", "--issuer-url", "https://oidc.example.com", "--out", dir); code != 0 {
		t.Fatalf("create-issuer: exit %d: %s", code, stderr)
	}
	first, _ := oidcissuer.Load(dir)
	out, stderr, code := run(t, "sts", "rotate-key", "--out", dir)
	if code != 0 {
		t.Fatalf("rotate-key: exit %d: %s", code, stderr)
	}
	is, _ := oidcissuer.Load(dir)
	old := first.SigningKey().ID
	for _, want := range []string{"--service-account-key-file=" + oidcissuer.PublicKeyFile(dir, old), "--service-account-signing-key-file=" + oidcissuer.PrivateKeyFile(dir, is.SigningKey().ID), "leash sts rotate-key --out " + dir + " --prune"} {
		if !strings.Contains(out, want) {
			t.Errorf("rotate-key output lacks %q:\n%s", want, out)
		}
	}
	pruneAt := is.PruneAt(is.Keys[0]).Format(time.RFC3339)
	_, stderr, code = run(t, "sts", "rotate-key", "--out", dir, "--prune")
	if code != ExitNo || !strings.Contains(stderr, old+" may be pruned from "+pruneAt) {
		t.Fatalf("early --prune: exit %d, stderr %q; want 1 naming %s", code, stderr, pruneAt)
	}
	if after, _ := oidcissuer.Load(dir); len(after.Keys) != 2 {
		t.Errorf("early --prune removed a key: %d keys", len(after.Keys))
	}
	out, stderr, code = run(t, "sts", "rotate-key", "--out", dir, "--prune", "--force")
	if code != 0 || !strings.Contains(out, "Pruned "+old) || strings.Contains(out, "--service-account-key-file="+oidcissuer.PublicKeyFile(dir, old)) {
		t.Fatalf("--prune --force: exit %d\n%s%s", code, out, stderr)
	}
	if out, _, code := run(t, "sts", "rotate-key", "--out", dir, "--prune"); code != 0 || !strings.Contains(out, "nothing to prune") {
		t.Errorf("--prune with nothing retired: exit %d %q", code, out)
	}
	if _, stderr, code := run(t, "sts", "rotate-key", "--out", t.TempDir()); code != ExitBadInput || !strings.Contains(stderr, "create-issuer") {
		t.Errorf("rotate-key on a folder without an issuer: exit %d %q", code, stderr)
	}
}

// TestCreateProviderIsIdempotentAndRefusesOtherClientIDs runs
// create-provider against leash local.
func TestCreateProviderIsIdempotentAndRefusesOtherClientIDs(t *testing.T) {
	l := localtest.Start(t, localaws.Config{})
	admin := l.IAM(nil)
	ctx := context.Background()
	access := []string{"--endpoint", l.URL, "--credentials-file", l.AdminCredentialsPath()}
	const issuer = "https://oidc.example.com/prod"
	providers := func() []string {
		out, err := admin.ListOpenIDConnectProviders(ctx, &iam.ListOpenIDConnectProvidersInput{})
		if err != nil {
			t.Fatal(err)
		}
		var arns []string
		for _, p := range out.OpenIDConnectProviderList {
			arns = append(arns, aws.ToString(p.Arn))
		}
		return arns
	}
	clientIDs := func(arn string) []string {
		out, err := admin.GetOpenIDConnectProvider(ctx, &iam.GetOpenIDConnectProviderInput{OpenIDConnectProviderArn: aws.String(arn)})
		if err != nil {
			t.Fatal(err)
		}
		return out.ClientIDList
	}

	out, stderr, code := run(t, append([]string{"sts", "create-provider", "--oidc-issuer", issuer}, access...)...)
	if code != 0 || !strings.Contains(out, "Made the OIDC provider") {
		t.Fatalf("create-provider: exit %d\n%s%s", code, out, stderr)
	}
	arns := providers()
	if want, _ := oidcissuer.ProviderARN(l.AccountID(), issuer); !slices.Equal(arns, []string{want}) {
		t.Fatalf("providers %v, want [%s]", arns, want)
	}
	if got := clientIDs(arns[0]); !slices.Equal(got, []string{"sts.amazonaws.com"}) {
		t.Errorf("client IDs %v", got)
	}

	out, stderr, code = run(t, append([]string{"sts", "create-provider", "--oidc-issuer", issuer}, access...)...)
	if code != 0 || !strings.Contains(out, "nothing changed") {
		t.Errorf("again: exit %d\n%s%s", code, out, stderr)
	}
	out, stderr, code = run(t, append([]string{"sts", "create-provider", "--oidc-issuer", issuer, "--audience", "other"}, access...)...)
	if code != ExitBadInput || !strings.Contains(stderr, `client IDs "sts.amazonaws.com", not other`) || !strings.Contains(stderr, "add-client-id-to-open-id-connect-provider") {
		t.Errorf("other audience: exit %d\n%s%s", code, out, stderr)
	}
	if got := clientIDs(arns[0]); !slices.Equal(got, []string{"sts.amazonaws.com"}) || len(providers()) != 1 {
		t.Errorf("the refused run changed the provider: client IDs %v", got)
	}
	if _, stderr, code := run(t, append([]string{"sts", "create-provider", "--oidc-issuer", "http://oidc.example.com"}, access...)...); code != ExitBadInput || !strings.Contains(stderr, "--oidc-issuer") {
		t.Errorf("http issuer: exit %d %q", code, stderr)
	}
}
