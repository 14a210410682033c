package policy

import (
	"reflect"
	"testing"
)

// Policies assembled from documents compiled once under another name, then
// renamed, explain every request exactly as Compile does for the same Set:
// the same decision, deciding statements (with the policy names) and
// reasons, SCP and RCP levels included.
func TestAssembleExplainsAsCompile(t *testing.T) {
	parse := func(kind Kind, s string) *Document {
		d, err := Parse([]byte(s), kind)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	identity := Named{Name: "id", Document: parse(Identity, `{"Version":"2012-10-17","Statement":[{"Sid":"All","Effect":"Allow","Action":["s3:*","sqs:*"],"Resource":"*"}]}`)}
	second := Named{Name: "id-2", Document: parse(Identity, `{"Version":"2012-10-17","Statement":[{"Sid":"NoDelete","Effect":"Deny","Action":"s3:DeleteObject","Resource":"*"}]}`)}
	boundary := Named{Name: "b", Document: parse(Boundary, `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:Get*","s3:DeleteObject","sqs:SendMessage"],"Resource":"*"}]}`)}
	session := Named{Name: "s", Document: parse(Session, `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:*","Resource":"*"}]}`)}
	bucket := Named{Name: "bucket", Document: parse(Resource, `{"Version":"2012-10-17","Statement":[{"Sid":"Secret","Effect":"Deny","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::secret/*"}]}`)}
	root := Named{Name: "root-scp", Document: parse(SCP, `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}`)}
	ou := Named{Name: "ou-scp", Document: parse(SCP, `{"Version":"2012-10-17","Statement":[{"Sid":"S3Only","Effect":"Allow","Action":"s3:*","Resource":"*"},{"Sid":"Org","Effect":"Deny","Action":"s3:GetObject","Resource":"arn:aws:s3:::org-secret/*"}]}`)}
	rcp := Named{Name: "rcp", Document: parse(RCP, `{"Version":"2012-10-17","Statement":[{"Sid":"Outside","Effect":"Deny","Principal":"*","Action":"s3:PutObject","Resource":"*","Condition":{"StringNotEquals":{"aws:PrincipalAccount":"111122223333"}}}]}`)}
	set := Set{
		Identity: []Named{identity, second}, ResourcePolicy: &bucket, Boundary: &boundary, Session: &session,
		SCPs: [][]Named{{root}, {ou, root}}, RCPs: [][]Named{{rcp}},
	}
	full, err := Compile(set)
	if err != nil {
		t.Fatal(err)
	}
	// Each document is compiled once under a name of its own and renamed
	// at use, as a cache shared by requests that name documents
	// differently does.
	one := func(n Named, k Kind) *Compiled {
		c, err := CompileOne(Named{Name: "compiled-as-" + n.Name, Document: n.Document}, k)
		if err != nil {
			t.Fatal(err)
		}
		return c.As(n.Name)
	}
	rootC := one(root, SCP)
	assembled := Assemble(
		[][]*Compiled{{rootC}, {one(ou, SCP), rootC}},
		[][]*Compiled{{one(rcp, RCP)}},
		Parts{Identity: []*Compiled{one(identity, Identity), one(second, Identity)}, Resource: one(bucket, Resource), Boundary: one(boundary, Boundary), Session: one(session, Session)},
	)
	cases := []struct {
		name, principal, action, resource string
		want                              Decision
	}{
		{"allowed through every layer", "arn:aws:sts::111122223333:assumed-role/app/s", "s3:GetObject", "arn:aws:s3:::reports/a", Allowed},
		{"denied by the second identity policy", "arn:aws:sts::111122223333:assumed-role/app/s", "s3:DeleteObject", "arn:aws:s3:::reports/a", ExplicitDeny},
		{"outside the boundary", "arn:aws:sts::111122223333:assumed-role/app/s", "s3:ListBucket", "arn:aws:s3:::reports", ImplicitDeny},
		{"blocked by the second SCP level", "arn:aws:sts::111122223333:assumed-role/app/s", "sqs:SendMessage", "arn:aws:sqs:us-east-1:111122223333:q", ImplicitDeny},
		{"denied by the resource policy", "arn:aws:sts::111122223333:assumed-role/app/s", "s3:GetObject", "arn:aws:s3:::secret/a", ExplicitDeny},
		{"denied by the SCP of the second level", "arn:aws:sts::111122223333:assumed-role/app/s", "s3:GetObject", "arn:aws:s3:::org-secret/a", ExplicitDeny},
		{"denied by the RCP", "arn:aws:iam::444455556666:user/bob", "s3:PutObject", "arn:aws:s3:::reports/a", ExplicitDeny},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := &Request{Principal: c.principal, Action: c.action, Resource: c.resource, ResourceAccount: "111122223333"}
			r.Context.AddPrincipalKeys(c.principal)
			got, want := assembled.Explain(r), full.Explain(r)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Assemble explains\n%+v\nCompile explains\n%+v", got, want)
			}
			if got.Decision != c.want {
				t.Errorf("decision %s, want %s", got.Decision, c.want)
			}
		})
	}
}
