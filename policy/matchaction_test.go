package policy

import "testing"

func TestMatchAction(t *testing.T) {
	tests := []struct {
		pattern, action string
		want            bool
	}{
		{"s3:Get*", "s3:GetObject", true},
		{"s3:get*", "S3:GETOBJECT", true},
		{"s3:Get*", "s3:PutObject", false},
		{"ec2:Describe?nstances", "ec2:DescribeInstances", true},
		{"*", "iam:PassRole", true},
		{"s3:GetBucket*", "s3:GetBucketLocation", true},
		{"s3:*", "s3:Get*", true},
		{"s3:GetObject", "s3:GetObjectAcl", false},
	}
	for _, tt := range tests {
		if got := MatchAction(tt.pattern, tt.action); got != tt.want {
			t.Errorf("MatchAction(%q, %q) = %v, want %v", tt.pattern, tt.action, got, tt.want)
		}
	}
}

// A policy variable may stand for an ARN part, and its own colon does not
// split the ARN (arn:aws:iam::${aws:PrincipalAccount}:role/x).
func TestVariableInAnARNPart(t *testing.T) {
	doc := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"iam:GetRole","Resource":"arn:aws:iam::${aws:PrincipalAccount}:role/app-*"}]}`
	d, err := Parse([]byte(doc), Identity)
	if err != nil {
		t.Fatal(err)
	}
	var set Set
	set.Add(Identity, Named{Name: "p", Document: d})
	p, err := Compile(set)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		resource string
		want     Decision
	}{
		{"arn:aws:iam::111122223333:role/app-web", Allowed},
		{"arn:aws:iam::444455556666:role/app-web", ImplicitDeny},
	} {
		r := &Request{Principal: "arn:aws:iam::111122223333:user/alice", Action: "iam:GetRole", Resource: tt.resource}
		r.Context.AddPrincipalKeys(r.Principal)
		if got := p.Decide(r); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.resource, got, tt.want)
		}
	}
}
