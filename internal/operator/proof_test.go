package operator

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"leash.dev/leash/internal/iamclient"
)

// resigner re-signs every sts:GetCallerIdentity call of keys it does not
// know with another user's key, as a client that mixed up two
// credentials would send it: leash local then really answers that the key
// acts as that other user.
type resigner struct {
	base http.RoundTripper
	mu   sync.Mutex
	as   *iamclient.AccessKey
	// known keys are sent as signed.
	known map[string]bool
}

func (r *resigner) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	as, known := r.as, r.known[signingKeyID(req)]
	r.mu.Unlock()
	if as == nil || known || req.Body == nil {
		return r.base.RoundTrip(req)
	}
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, err
	}
	_ = req.Body.Close()
	req = req.Clone(req.Context())
	req.Body = io.NopCloser(bytes.NewReader(body))
	if !bytes.Contains(body, []byte("Action=GetCallerIdentity")) {
		return r.base.RoundTrip(req)
	}
	req.Header.Del("Authorization")
	req.Header.Del("X-Amz-Security-Token")
	sum := sha256.Sum256(body)
	creds := aws.Credentials{AccessKeyID: as.ID, SecretAccessKey: as.Secret.Reveal()}
	if err := v4.NewSigner().SignHTTP(req.Context(), creds, req, hex.EncodeToString(sum[:]), "sts", "us-east-1", time.Now()); err != nil {
		return nil, err
	}
	return r.base.RoundTrip(req)
}

// signingKeyID is the access key ID in a SigV4 Authorization header.
func signingKeyID(req *http.Request) string {
	_, cred, _ := strings.Cut(req.Header.Get("Authorization"), "Credential=")
	id, _, _ := strings.Cut(cred, "/")
	return id
}

// mintRefusesKeyActingAsAnotherUser pins the proof's identity check with a
// key whose sts:GetCallerIdentity names another user altogether.
func mintRefusesKeyActingAsAnotherUser(t *testing.T, e *env) {
	decoy, err := e.admin.CreateUser(e.ctx, iamclient.NewUser{Name: "decoy"})
	if err != nil {
		t.Fatal(err)
	}
	decoyKey, _, err := e.admin.CreateAccessKey(e.ctx, "decoy")
	if err != nil {
		t.Fatal(err)
	}
	root, err := FileRoot{Path: e.local.AdminCredentialsPath()}.Root(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	e.resign.mu.Lock()
	e.resign.as, e.resign.known = &decoyKey, map[string]bool{root.Key.ID: true, decoyKey.ID: true}
	e.resign.mu.Unlock()

	cr := mintRequest(t, "reader", allow("*", "iam:ListUsers"))
	name := userName("unit", "apps", "reader", string(cr.UID))
	out, err := e.sync(t, e.p, cr)
	if err == nil || !strings.Contains(err.Error(), "acts as "+decoy.ARN) || out.Provisioned {
		t.Errorf("sync: error %v, provisioned %v; want an error naming %s", err, out.Provisioned, decoy.ARN)
	}
	if s := e.secret(t, cr); s != nil {
		t.Errorf("a key acting as %s was published for %s", decoy.ARN, name)
	}
	if ids := e.keyIDs(t, name); len(ids) != 0 {
		t.Errorf("keys %v left on the user, want the unproven one deleted", ids)
	}
}
