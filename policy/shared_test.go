package policy

import (
	"reflect"
	"testing"
)

// Policies assembled from documents compiled one by one decide as Compile
// does for the same Set: the account model depends on it.
func TestWithDecidesAsCompile(t *testing.T) {
	parse := func(kind Kind, s string) *Document {
		d, err := Parse([]byte(s), kind)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	identity := Named{Name: "id", Document: parse(Identity, `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:*","iam:PassRole"],"Resource":"*"}]}`)}
	boundary := Named{Name: "b", Document: parse(Boundary, `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:Get*","Resource":"*"}]}`)}
	bucket := Named{Name: "bucket", Document: parse(Resource, `{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::secret/*"}]}`)}
	scp := Named{Name: "scp", Document: parse(SCP, `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"},{"Effect":"Deny","Action":"s3:GetObject","Resource":"arn:aws:s3:::org-secret/*"}]}`)}
	full, err := Compile(Set{Identity: []Named{identity}, Boundary: &boundary, ResourcePolicy: &bucket, SCPs: [][]Named{{scp}}})
	if err != nil {
		t.Fatal(err)
	}
	base, err := Compile(Set{SCPs: [][]Named{{scp}}})
	if err != nil {
		t.Fatal(err)
	}
	one := func(n Named, k Kind) *Compiled {
		c, err := CompileOne(n, k)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	assembled := base.With(Parts{Identity: []*Compiled{one(identity, Identity)}, Boundary: one(boundary, Boundary), Resource: one(bucket, Resource)})
	cases := []struct {
		name, action, resource string
		want                   Decision
	}{
		{"allowed by identity within the boundary", "s3:GetObject", "arn:aws:s3:::reports/a", Allowed},
		{"outside the boundary", "s3:PutObject", "arn:aws:s3:::reports/a", ImplicitDeny},
		{"denied by the resource policy", "s3:GetObject", "arn:aws:s3:::secret/a", ExplicitDeny},
		{"denied by the shared SCP", "s3:GetObject", "arn:aws:s3:::org-secret/a", ExplicitDeny},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := &Request{Principal: "arn:aws:iam::111122223333:user/alice", Action: c.action, Resource: c.resource}
			if got, want := assembled.Decide(r), full.Decide(r); got != want || got != c.want {
				t.Errorf("With: %s, Compile: %s, want %s", got, want, c.want)
			}
			if got, want := assembled.Explain(r).Statements, full.Explain(r).Statements; len(got) != len(want) {
				t.Errorf("With explains %v, Compile %v", got, want)
			}
		})
	}
}

func TestMayAllow(t *testing.T) {
	cases := []struct {
		name, doc, action string
		want              bool
	}{
		{"an Allow naming the action", `{"Statement":[{"Effect":"Allow","Action":"sts:AssumeRole","Resource":"arn:aws:iam::1:role/x"}]}`, "sts:AssumeRole", true},
		{"a pattern, whatever the case", `{"Statement":[{"Effect":"Allow","Action":"STS:Assume*","Resource":"*"}]}`, "sts:AssumeRole", true},
		{"NotAction that leaves the action in", `{"Statement":[{"Effect":"Allow","NotAction":"iam:*","Resource":"*"}]}`, "sts:AssumeRole", true},
		{"NotAction that takes it out", `{"Statement":[{"Effect":"Allow","NotAction":"sts:*","Resource":"*"}]}`, "sts:AssumeRole", false},
		{"a Deny is no allow", `{"Statement":[{"Effect":"Deny","Action":"sts:AssumeRole","Resource":"*"}]}`, "sts:AssumeRole", false},
		{"another action", `{"Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}]}`, "sts:AssumeRole", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := Parse([]byte(c.doc), Identity)
			if err != nil {
				t.Fatal(err)
			}
			comp, err := CompileOne(Named{Name: "p", Document: d}, Identity)
			if err != nil {
				t.Fatal(err)
			}
			if got := comp.MayAllow(c.action); got != c.want {
				t.Errorf("MayAllow(%s) = %v, want %v", c.action, got, c.want)
			}
		})
	}
}

// A document compiled for one action decides and explains requests for
// that action as the whole document does, for allowed and denied requests
// of several actions: the
// engine reads a statement's resources, principals and conditions only
// once its action matches.
func TestCompileOneForDecidesAsCompileOne(t *testing.T) {
	docs := []struct {
		kind Kind
		text string
	}{
		{Identity, `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:Get*","sqs:SendMessage"],"Resource":["arn:aws:s3:::b/*","arn:aws:sqs:*:111122223333:q"],"Condition":{"StringEquals":{"aws:RequestedRegion":"eu-west-1"}}},{"Effect":"Deny","NotAction":["s3:*"],"Resource":"*"},{"Effect":"Allow","Action":"s3:PutObject","NotResource":"arn:aws:s3:::b/secret/*"},{"Effect":"Deny","Action":"s3:GetObject","Resource":"arn:aws:s3:::b/${aws:username}/*"}]}`},
		{Resource, `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::111122223333:user/alice"},"Action":"s3:GetObject","Resource":"arn:aws:s3:::b/*"},{"Effect":"Deny","Principal":"*","Action":"s3:PutObject","Resource":"arn:aws:s3:::b/*","Condition":{"Bool":{"aws:SecureTransport":"false"}}}]}`},
	}
	requests := []Request{
		{Principal: "arn:aws:iam::111122223333:user/alice", Action: "s3:GetObject", Resource: "arn:aws:s3:::b/alice/k"},
		{Principal: "arn:aws:iam::111122223333:user/alice", Action: "S3:getobject", Resource: "arn:aws:s3:::b/k"},
		{Principal: "arn:aws:iam::111122223333:user/bob", Action: "s3:PutObject", Resource: "arn:aws:s3:::b/secret/k"},
		{Principal: "arn:aws:iam::111122223333:user/bob", Action: "s3:PutObject", Resource: "arn:aws:s3:::b/k"},
		{Principal: "arn:aws:iam::111122223333:user/bob", Action: "sqs:SendMessage", Resource: "arn:aws:sqs:eu-west-1:111122223333:q"},
		{Principal: "arn:aws:iam::111122223333:user/bob", Action: "ec2:RunInstances", Resource: "*"},
	}
	for _, d := range docs {
		doc, err := Parse([]byte(d.text), d.kind)
		if err != nil {
			t.Fatal(err)
		}
		whole, err := CompileOne(Named{Name: "p", Document: doc}, d.kind)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range requests {
			for _, secure := range []string{"true", "false"} {
				r := r
				r.Context = Context{}
				r.Context.Set("aws:RequestedRegion", "eu-west-1")
				r.Context.Set("aws:SecureTransport", secure)
				r.Context.Set("aws:username", "alice")
				one, err := CompileOneFor(Named{Name: "p", Document: doc}, d.kind, r.Action)
				if err != nil {
					t.Fatal(err)
				}
				var base Policies
				place := func(c *Compiled) *Policies {
					if d.kind == Identity {
						return base.With(Parts{Identity: []*Compiled{c}})
					}
					return base.With(Parts{Resource: c})
				}
				got, want := place(one).Explain(&r), place(whole).Explain(&r)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s %s on %s (SecureTransport %s): compiled for the action %+v, whole %+v", d.kind, r.Action, r.Resource, secure, got, want)
				}
			}
		}
	}
}
