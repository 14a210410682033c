package operator

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/iamclient"
)

// Ceilings of TestCeilingChangeBoundsEveryMintedUser: readers may read
// users but not list them; listers may do both.
const (
	readersCeiling = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["iam:GetUser","ec2:Describe*"],"Resource":"*"}]}`
	listersCeiling = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["iam:GetUser","iam:ListUsers","ec2:Describe*"],"Resource":"*"}]}`
)

// TestCeilingChangeBoundsEveryMintedUser pins what a change of the
// ceiling does while the operator runs: every minted user, those of
// requests now above it included, is bounded by the new ceiling before
// anything else is minted, so an old key loses at once what the ceiling
// removed and gets it back when it is widened; a removed ceiling removes
// the boundary; an invalid one is refused and the one in force stays.
func TestCeilingChangeBoundsEveryMintedUser(t *testing.T) {
	e := newEnv(t, envOptions{})
	reader := mintRequest(t, "reader", allow("*", "iam:GetUser"))
	lister := mintRequest(t, "lister", allow("*", "iam:GetUser", "iam:ListUsers"))
	e.ready(t, reader)
	e.ready(t, lister)
	readerKey, listerKey := e.admin.WithKey(e.publishedKey(t, reader)), e.admin.WithKey(e.publishedKey(t, lister))
	ceilingARN := "arn:aws:iam::" + e.account + ":policy" + ceilingPath("unit") + ceilingPolicyName("unit")
	boundaries := func(want string) {
		t.Helper()
		for _, cr := range []*leashv1.CredentialsRequest{reader, lister} {
			u, err := e.admin.GetUser(e.ctx, knownUser(cr))
			if err != nil {
				t.Fatal(err)
			}
			if u.Boundary != want {
				t.Errorf("user of %s has boundary %q, want %q", cr.Name, u.Boundary, want)
			}
		}
	}
	canList := func(want bool) {
		t.Helper()
		_, err := listerKey.ListUsers(e.ctx, "/")
		if want && err != nil {
			t.Errorf("iam:ListUsers with the lister's key: %v, want allowed", err)
		}
		if !want && !iamclient.IsAccessDenied(err) {
			t.Errorf("iam:ListUsers with the lister's key: %v, want AccessDenied by the ceiling boundary", err)
		}
		if _, err := readerKey.GetUser(e.ctx, knownUser(reader)); err != nil {
			t.Errorf("iam:GetUser with the reader's key: %v, want allowed by every ceiling", err)
		}
	}
	change := func(g Guardrails) {
		t.Helper()
		if err := e.p.SetGuardrails(g); err != nil {
			t.Fatal(err)
		}
		if err := e.p.BoundMinted(e.ctx); err != nil {
			t.Fatal(err)
		}
	}
	canList(true)

	// A ceiling added: both users are bounded, the lister's above it.
	change(Guardrails{Ceiling: readersCeiling})
	boundaries(ceilingARN)
	canList(false)
	if out, err := e.sync(t, e.p, lister); err != nil || out.Failure == nil || out.Failure.Reason != ReasonAboveCeiling {
		t.Fatalf("sync of the lister above the new ceiling: %v, %+v; want %s", err, out.Failure, ReasonAboveCeiling)
	}
	e.ready(t, reader)

	// A user above the ceiling that lost its boundary behind leash's back
	// is bounded again before its request reports AboveCeiling.
	if err := e.admin.DeleteUserBoundary(e.ctx, knownUser(lister)); err != nil {
		t.Fatal(err)
	}
	if out, err := e.sync(t, e.p, lister); err != nil || out.Failure == nil || out.Failure.Reason != ReasonAboveCeiling {
		t.Fatalf("sync of the lister: %v, %+v; want %s", err, out.Failure, ReasonAboveCeiling)
	}
	boundaries(ceilingARN)

	// Widened: the ceiling policy's new default version is every user's
	// boundary in one call, and the lister is minted again.
	change(Guardrails{Ceiling: listersCeiling})
	boundaries(ceilingARN)
	if doc, err := e.admin.ManagedPolicyDocument(e.ctx, ceilingARN); err != nil || !strings.Contains(doc, "iam:ListUsers") {
		t.Errorf("the ceiling policy after widening: %v, %s; want it to allow iam:ListUsers", err, doc)
	}
	canList(true)
	e.ready(t, lister)

	// An invalid ceiling is refused, and the one in force stays.
	if err := e.p.SetGuardrails(Guardrails{Ceiling: `{"Version":"2012-10-17","Statement":[`}); err == nil || !strings.Contains(err.Error(), "ceiling: ") {
		t.Errorf("an invalid ceiling: %v, want it refused naming the ceiling", err)
	}
	if got := e.p.guardrails().Ceiling; got != listersCeiling {
		t.Errorf("the ceiling in force after an invalid one is %s, want the one before", got)
	}

	// Removed: every user's boundary goes with it.
	change(Guardrails{})
	boundaries("")
	canList(true)
}

// TestGuardrailWatchRefusesInvalidChange pins that an invalid ceiling
// written to the --ceiling file while the operator runs is refused, once,
// with a log line saying why, and the ceiling in force stays.
func TestGuardrailWatchRefusesInvalidChange(t *testing.T) {
	e := newEnv(t, envOptions{})
	file := filepath.Join(t.TempDir(), "ceiling.json")
	write := func(doc string) {
		t.Helper()
		if err := os.WriteFile(file, []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	var lines []string
	logger := funcr.New(func(prefix, args string) {
		mu.Lock()
		defer mu.Unlock()
		lines = append(lines, args)
	}, funcr.Options{})
	logged := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), lines...)
	}
	w := &guardrailWatch{prov: e.p, sources: GuardrailSources{CeilingFile: file}}

	write(readersCeiling)
	if !w.reload(e.ctx, logger) || e.p.guardrails().Ceiling != readersCeiling {
		t.Fatalf("a valid ceiling in the file was not put in force; log: %v", logged())
	}
	write(`{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Action":"*","Resource":"*"}]}`)
	for range 2 {
		if w.reload(e.ctx, logger) {
			t.Fatal("a ceiling that allows nothing was put in force")
		}
	}
	if got := e.p.guardrails().Ceiling; got != readersCeiling {
		t.Errorf("the ceiling in force after an invalid change is %s, want the one before", got)
	}
	var refusals []string
	for _, l := range logged() {
		if strings.Contains(l, "refused the changed guardrails") {
			refusals = append(refusals, l)
		}
	}
	if len(refusals) != 1 || !strings.Contains(refusals[0], "has no Allow statement") {
		t.Errorf("log lines refusing the change: %q; want one, saying the ceiling has no Allow statement", refusals)
	}
	write(listersCeiling)
	if !w.reload(e.ctx, logr.Discard()) || e.p.guardrails().Ceiling != listersCeiling {
		t.Error("a valid ceiling after an invalid one was not put in force")
	}
}

// TestCeilingAddedDuringMints pins that a ceiling put in force while
// workers mint leaves no user without it: a mint either finished before
// the walk, which bounds its user, or waits for the walk and creates its
// user with the ceiling.
func TestCeilingAddedDuringMints(t *testing.T) {
	e := newEnv(t, envOptions{})
	const n = 6
	var wg sync.WaitGroup
	errs := make(chan error, n+1)
	for i := range n {
		cr := mintRequest(t, "m"+strings.Repeat("x", i), allow("*", "iam:GetUser"))
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := e.p.Sync(e.ctx, cr); err != nil {
				errs <- err
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := e.p.SetGuardrails(Guardrails{Ceiling: readersCeiling}); err != nil {
			errs <- err
			return
		}
		if err := e.p.BoundMinted(e.ctx); err != nil {
			errs <- err
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	ceilingARN := "arn:aws:iam::" + e.account + ":policy" + ceilingPath("unit") + ceilingPolicyName("unit")
	users, err := e.admin.ListUsers(e.ctx, userPath("unit"))
	if err != nil {
		t.Fatal(err)
	}
	if len(users) != n {
		t.Fatalf("%d users minted, want %d", len(users), n)
	}
	for _, listed := range users {
		u, err := e.admin.GetUser(e.ctx, listed.Name)
		if err != nil {
			t.Fatal(err)
		}
		if u.Boundary != ceilingARN {
			t.Errorf("user %s has boundary %q after a ceiling was added during its mint, want the ceiling", u.Name, u.Boundary)
		}
	}
}
