package policy

import (
	"strings"
	"testing"
)

const (
	alice     = "arn:aws:iam::111122223333:user/alice"
	session   = "arn:aws:sts::111122223333:assumed-role/app/i-0abc"
	roleARN   = "arn:aws:iam::111122223333:role/app"
	otherUser = "arn:aws:iam::444455556666:user/bob"
	bucketObj = "arn:aws:s3:::bucket/key"
)

func doc(t testing.TB, kind Kind, stmts ...string) *Document {
	t.Helper()
	d, err := Parse([]byte(`{"Version":"2012-10-17","Statement":[`+strings.Join(stmts, ",")+`]}`), kind)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return d
}

func named(name string, d *Document) *Named { return &Named{Name: name, Document: d} }

const (
	allowS3     = `{"Effect":"Allow","Action":"s3:*","Resource":"*"}`
	denyS3      = `{"Effect":"Deny","Action":"s3:*","Resource":"*"}`
	allowEC2    = `{"Effect":"Allow","Action":"ec2:*","Resource":"*"}`
	allowAliceR = `{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::111122223333:user/alice"},"Action":"s3:GetObject","Resource":"*"}`
	allowRootR  = `{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::111122223333:root"},"Action":"s3:GetObject","Resource":"*"}`
)

func TestEvaluationLogic(t *testing.T) {
	id := func(stmts ...string) []Named { return []Named{{Name: "id", Document: doc(t, Identity, stmts...)}} }
	res := func(stmts ...string) *Named { return named("res", doc(t, Resource, stmts...)) }
	level := func(stmts ...string) []Named { return []Named{{Name: "scp", Document: doc(t, SCP, stmts...)}} }
	tests := []struct {
		name      string
		set       Set
		principal string
		action    string
		resource  string
		resAcct   string
		want      Decision
	}{
		{"no policy is an implicit deny", Set{}, alice, "s3:GetObject", bucketObj, "", ImplicitDeny},
		{"identity allow", Set{Identity: id(allowS3)}, alice, "s3:GetObject", bucketObj, "", Allowed},
		{"without a principal the identity policies decide", Set{Identity: id(allowS3)}, "", "s3:GetObject", "arn:aws:s3:::bucket/key", "", Allowed},
		{"without a principal the resource account is the caller's", Set{Identity: id(allowEC2)}, "", "ec2:StartInstances", "arn:aws:ec2:eu-west-1:444455556666:instance/i-1", "", Allowed},
		{"explicit deny in identity wins", Set{Identity: id(allowS3, denyS3)}, alice, "s3:GetObject", bucketObj, "", ExplicitDeny},
		{"explicit deny in resource policy wins", Set{Identity: id(allowS3), ResourcePolicy: res(strings.Replace(denyS3, `"Effect":"Deny"`, `"Effect":"Deny","Principal":"*"`, 1))}, alice, "s3:GetObject", bucketObj, "", ExplicitDeny},
		{"explicit deny in boundary wins", Set{Identity: id(allowS3), Boundary: named("b", doc(t, Boundary, allowS3, denyS3))}, alice, "s3:GetObject", bucketObj, "", ExplicitDeny},
		{"explicit deny in SCP wins", Set{Identity: id(allowS3), SCPs: [][]Named{level(allowS3, denyS3)}}, alice, "s3:GetObject", bucketObj, "", ExplicitDeny},
		{"SCP at every level must allow", Set{Identity: id(allowS3), SCPs: [][]Named{level(allowS3), level(allowEC2)}}, alice, "s3:GetObject", bucketObj, "", ImplicitDeny},
		{"SCPs allowing at every level", Set{Identity: id(allowS3), SCPs: [][]Named{level(allowS3), level(`{"Effect":"Allow","Action":"*","Resource":"*"}`)}}, alice, "s3:GetObject", bucketObj, "", Allowed},
		{"SCP alone grants nothing", Set{SCPs: [][]Named{level(allowS3)}}, alice, "s3:GetObject", bucketObj, "", ImplicitDeny},
		{"RCP without deny leaves the decision (RCPFullAWSAccess is always attached)", Set{Identity: id(allowS3), RCPs: [][]Named{{{Name: "rcp", Document: doc(t, RCP, `{"Effect":"Deny","Principal":"*","Action":"sqs:*","Resource":"*"}`)}}}}, alice, "s3:GetObject", bucketObj, "", Allowed},
		{"RCP deny wins", Set{Identity: id(allowS3), RCPs: [][]Named{{{Name: "rcp", Document: doc(t, RCP, `{"Effect":"Deny","Principal":"*","Action":"s3:*","Resource":"*"}`)}}}}, alice, "s3:GetObject", bucketObj, "", ExplicitDeny},
		{"same account: resource policy naming the user allows alone", Set{ResourcePolicy: res(allowAliceR)}, alice, "s3:GetObject", bucketObj, "", Allowed},
		{"same account: resource policy naming the account needs identity allow", Set{ResourcePolicy: res(allowRootR)}, alice, "s3:GetObject", bucketObj, "", ImplicitDeny},
		{"same account: resource policy naming the account plus identity allow", Set{Identity: id(allowS3), ResourcePolicy: res(allowRootR)}, alice, "s3:GetObject", bucketObj, "", Allowed},
		{"cross account: identity alone is not enough", Set{Identity: id(allowS3)}, otherUser, "s3:GetObject", bucketObj, "111122223333", ImplicitDeny},
		{"cross account: resource policy alone is not enough", Set{ResourcePolicy: res(strings.Replace(allowRootR, "111122223333", "444455556666", 1))}, otherUser, "s3:GetObject", bucketObj, "111122223333", ImplicitDeny},
		{"cross account: both sides allow", Set{Identity: id(allowS3), ResourcePolicy: res(strings.Replace(allowRootR, "111122223333", "444455556666", 1))}, otherUser, "s3:GetObject", bucketObj, "111122223333", Allowed},
		{"boundary intersects with identity", Set{Identity: id(allowS3), Boundary: named("b", doc(t, Boundary, allowEC2))}, alice, "s3:GetObject", bucketObj, "", ImplicitDeny},
		{"boundary and identity both allow", Set{Identity: id(allowS3), Boundary: named("b", doc(t, Boundary, allowS3))}, alice, "s3:GetObject", bucketObj, "", Allowed},
		{"boundary alone grants nothing", Set{Boundary: named("b", doc(t, Boundary, allowS3))}, alice, "s3:GetObject", bucketObj, "", ImplicitDeny},
		{"resource policy naming the user bypasses the boundary", Set{ResourcePolicy: res(allowAliceR), Boundary: named("b", doc(t, Boundary, allowEC2))}, alice, "s3:GetObject", bucketObj, "", Allowed},
		{"resource policy naming the role does not bypass the boundary", Set{ResourcePolicy: res(strings.Replace(allowAliceR, "user/alice", "role/app", 1)), Boundary: named("b", doc(t, Boundary, allowEC2))}, session, "s3:GetObject", bucketObj, "", ImplicitDeny},
		{"resource policy naming the role allows a session of it", Set{ResourcePolicy: res(strings.Replace(allowAliceR, "user/alice", "role/app", 1))}, session, "s3:GetObject", bucketObj, "", Allowed},
		{"resource policy naming the session bypasses the session policy", Set{ResourcePolicy: res(strings.Replace(allowAliceR, "arn:aws:iam::111122223333:user/alice", session, 1)), Session: named("s", doc(t, Session, allowEC2))}, session, "s3:GetObject", bucketObj, "", Allowed},
		{"session policy intersects", Set{Identity: id(allowS3), Session: named("s", doc(t, Session, allowEC2))}, session, "s3:GetObject", bucketObj, "", ImplicitDeny},
		{"session policy and identity both allow", Set{Identity: id(allowS3), Session: named("s", doc(t, Session, allowS3))}, session, "s3:GetObject", bucketObj, "", Allowed},
		{"trust policy naming the user allows AssumeRole without identity policy",
			Set{ResourcePolicy: named("trust", doc(t, Trust, `{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::111122223333:user/alice"},"Action":"sts:AssumeRole"}`))},
			alice, "sts:AssumeRole", roleARN, "", Allowed},
		{"trust policy naming the account needs identity allow for AssumeRole",
			Set{ResourcePolicy: named("trust", doc(t, Trust, `{"Effect":"Allow","Principal":{"AWS":"111122223333"},"Action":"sts:AssumeRole"}`))},
			alice, "sts:AssumeRole", roleARN, "", ImplicitDeny},
		{"trust policy naming the account plus identity allow",
			Set{Identity: id(`{"Effect":"Allow","Action":"sts:AssumeRole","Resource":"arn:aws:iam::111122223333:role/*"}`), ResourcePolicy: named("trust", doc(t, Trust, `{"Effect":"Allow","Principal":{"AWS":"111122223333"},"Action":"sts:AssumeRole"}`))},
			alice, "sts:AssumeRole", roleARN, "", Allowed},
		{"trust policy must allow even when the identity policy does",
			Set{Identity: id(`{"Effect":"Allow","Action":"sts:AssumeRole","Resource":"*"}`), ResourcePolicy: named("trust", doc(t, Trust, `{"Effect":"Allow","Principal":{"Service":"ec2.amazonaws.com"},"Action":"sts:AssumeRole"}`))},
			alice, "sts:AssumeRole", roleARN, "", ImplicitDeny},
		{"trust policy must allow sts:TagSession too",
			Set{Identity: id(`{"Effect":"Allow","Action":["sts:AssumeRole","sts:TagSession"],"Resource":"*"}`), ResourcePolicy: named("trust", doc(t, Trust, `{"Effect":"Allow","Principal":{"AWS":"111122223333"},"Action":"sts:AssumeRole"}`))},
			alice, "sts:TagSession", roleARN, "", ImplicitDeny},
		{"web identity trust",
			Set{ResourcePolicy: named("trust", doc(t, Trust, `{"Effect":"Allow","Principal":{"Federated":"arn:aws:iam::111122223333:oidc-provider/token.actions.githubusercontent.com"},"Action":"sts:AssumeRoleWithWebIdentity"}`))},
			"arn:aws:iam::111122223333:oidc-provider/token.actions.githubusercontent.com", "sts:AssumeRoleWithWebIdentity", roleARN, "", Allowed},
		{"web identity from another provider",
			Set{ResourcePolicy: named("trust", doc(t, Trust, `{"Effect":"Allow","Principal":{"Federated":"accounts.google.com"},"Action":"sts:AssumeRoleWithWebIdentity"}`))},
			"arn:aws:iam::111122223333:oidc-provider/token.actions.githubusercontent.com", "sts:AssumeRoleWithWebIdentity", roleARN, "", ImplicitDeny},
		{"service principal allowed by resource policy",
			Set{ResourcePolicy: res(`{"Effect":"Allow","Principal":{"Service":"cloudtrail.amazonaws.com"},"Action":"s3:PutObject","Resource":"arn:aws:s3:::trail/*"}`)},
			"cloudtrail.amazonaws.com", "s3:PutObject", "arn:aws:s3:::trail/AWSLogs/x", "", Allowed},
		{"service principal is not an account principal",
			Set{Identity: id(allowS3), ResourcePolicy: res(allowRootR)},
			"cloudtrail.amazonaws.com", "s3:GetObject", bucketObj, "", ImplicitDeny},
		{"account root principal with identity allow", Set{Identity: id(allowS3)}, "arn:aws:iam::111122223333:root", "s3:GetObject", bucketObj, "", Allowed},
		{"GetCallerIdentity needs no permission", Set{Identity: id(`{"Effect":"Deny","Action":"*","Resource":"*"}`)}, alice, "sts:GetCallerIdentity", "*", "", Allowed},
		{"KMS key without a key policy is denied", Set{Identity: id(`{"Effect":"Allow","Action":"kms:*","Resource":"*"}`)}, alice, "kms:Decrypt", "arn:aws:kms:eu-west-1:111122223333:key/1234", "", ImplicitDeny},
		{"KMS key policy delegating to the account", Set{Identity: id(`{"Effect":"Allow","Action":"kms:*","Resource":"*"}`), ResourcePolicy: res(`{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::111122223333:root"},"Action":"kms:*","Resource":"*"}`)}, alice, "kms:Decrypt", "arn:aws:kms:eu-west-1:111122223333:key/1234", "", Allowed},
		{"NotPrincipal deny spares the named principal",
			Set{Identity: id(allowS3), ResourcePolicy: res(`{"Effect":"Deny","NotPrincipal":{"AWS":"arn:aws:iam::111122223333:user/alice"},"Action":"s3:*","Resource":"*"}`)},
			alice, "s3:GetObject", bucketObj, "", Allowed},
		{"NotPrincipal naming only the account does not spare its users",
			Set{Identity: id(allowS3), ResourcePolicy: res(`{"Effect":"Deny","NotPrincipal":{"AWS":"arn:aws:iam::111122223333:root"},"Action":"s3:*","Resource":"*"}`)},
			alice, "s3:GetObject", bucketObj, "", ExplicitDeny},
		{"NotPrincipal deny always applies to a principal with a boundary",
			Set{Identity: id(allowS3), Boundary: named("b", doc(t, Boundary, allowS3)), ResourcePolicy: res(`{"Effect":"Deny","NotPrincipal":{"AWS":["arn:aws:iam::111122223333:user/alice","arn:aws:iam::111122223333:root"]},"Action":"s3:*","Resource":"*"}`)},
			alice, "s3:GetObject", bucketObj, "", ExplicitDeny},
		{"account root has full access in its account", Set{}, "arn:aws:iam::111122223333:root", "s3:GetObject", bucketObj, "", Allowed},
		{"account root is still limited by SCPs", Set{SCPs: [][]Named{level(allowEC2)}}, "arn:aws:iam::111122223333:root", "s3:GetObject", bucketObj, "", ImplicitDeny},
		{"AWS star names service callers too",
			Set{ResourcePolicy: res(`{"Effect":"Deny","Principal":{"AWS":"*"},"Action":"s3:*","Resource":"*"}`, `{"Effect":"Allow","Principal":{"Service":"config.amazonaws.com"},"Action":"s3:*","Resource":"*"}`)},
			"config.amazonaws.com", "s3:GetObject", bucketObj, "", ExplicitDeny},
		{"resource policy for everyone does not lift the session policy",
			Set{ResourcePolicy: res(`{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"*"}`), Session: named("s", doc(t, Session, allowEC2))},
			session, "s3:GetObject", bucketObj, "", ImplicitDeny},
		{"Cognito identity pools are web identity providers",
			Set{ResourcePolicy: named("trust", doc(t, Trust, `{"Effect":"Allow","Principal":{"Federated":"cognito-identity.amazonaws.com"},"Action":"sts:AssumeRoleWithWebIdentity"}`))},
			"cognito-identity.amazonaws.com", "sts:AssumeRoleWithWebIdentity", roleARN, "", Allowed},
		{"NotPrincipal deny hits others",
			Set{Identity: id(allowS3), ResourcePolicy: res(`{"Effect":"Deny","NotPrincipal":{"AWS":"arn:aws:iam::111122223333:user/carol"},"Action":"s3:*","Resource":"*"}`)},
			alice, "s3:GetObject", bucketObj, "", ExplicitDeny},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Compile(tt.set)
			if err != nil {
				t.Fatalf("Compile: %v", err)
			}
			r := &Request{Principal: tt.principal, Action: tt.action, Resource: tt.resource, ResourceAccount: tt.resAcct}
			if got := p.Decide(r); got != tt.want {
				t.Errorf("Decide = %v, want %v", got, tt.want)
			}
			// Explain must reach the same decision as Decide.
			if got := p.Explain(r).Decision; got != tt.want {
				t.Errorf("Explain = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestMatching(t *testing.T) {
	tests := []struct {
		name     string
		stmt     string
		action   string
		resource string
		want     Decision
	}{
		{"action names are case-insensitive", `{"Effect":"Allow","Action":"S3:getobject","Resource":"*"}`, "s3:GetObject", bucketObj, Allowed},
		{"action star suffix", `{"Effect":"Allow","Action":"ec2:Describe*","Resource":"*"}`, "ec2:DescribeInstances", "*", Allowed},
		{"action star suffix does not match other verbs", `{"Effect":"Allow","Action":"ec2:Describe*","Resource":"*"}`, "ec2:RunInstances", "*", ImplicitDeny},
		{"action question mark matches one character", `{"Effect":"Allow","Action":"s3:?etObject","Resource":"*"}`, "s3:GetObject", bucketObj, Allowed},
		{"action question mark needs a character", `{"Effect":"Allow","Action":"s3:G?etObject","Resource":"*"}`, "s3:GetObject", bucketObj, ImplicitDeny},
		{"star action", `{"Effect":"Allow","Action":"*","Resource":"*"}`, "iam:CreateUser", "*", Allowed},
		{"NotAction allows everything else", `{"Effect":"Allow","NotAction":"iam:*","Resource":"*"}`, "s3:GetObject", bucketObj, Allowed},
		{"NotAction excludes its actions", `{"Effect":"Allow","NotAction":"iam:*","Resource":"*"}`, "iam:CreateUser", "*", ImplicitDeny},
		{"resource ARNs are case-sensitive", `{"Effect":"Allow","Action":"s3:*","Resource":"arn:aws:s3:::Bucket/*"}`, "s3:GetObject", bucketObj, ImplicitDeny},
		{"resource star in path", `{"Effect":"Allow","Action":"s3:*","Resource":"arn:aws:s3:::bucket/*"}`, "s3:GetObject", bucketObj, Allowed},
		{"resource question mark", `{"Effect":"Allow","Action":"s3:*","Resource":"arn:aws:s3:::bucket/ke?"}`, "s3:GetObject", bucketObj, Allowed},
		{"resource star in account and region", `{"Effect":"Allow","Action":"iam:*","Resource":"arn:aws:iam::*:role/krops-*"}`, "iam:PutRolePolicy", "arn:aws:iam::111122223333:role/krops-ci-e2e", Allowed},
		{"resource wildcard does not span the colon after the account", `{"Effect":"Allow","Action":"ec2:*","Resource":"arn:aws:ec2:eu-west-1:*:instance/*"}`, "ec2:StartInstances", "arn:aws:ec2:eu-west-1:111122223333:222:instance/i-1", ImplicitDeny},
		{"resource wildcard within the account part", `{"Effect":"Allow","Action":"ec2:*","Resource":"arn:aws:ec2:eu-west-1:*:instance/*"}`, "ec2:StartInstances", "arn:aws:ec2:eu-west-1:111122223333:instance/i-1", Allowed},
		{"NotResource allows other resources", `{"Effect":"Allow","Action":"s3:*","NotResource":"arn:aws:s3:::secret/*"}`, "s3:GetObject", bucketObj, Allowed},
		{"NotResource excludes its resources", `{"Effect":"Allow","Action":"s3:*","NotResource":"arn:aws:s3:::bucket/*"}`, "s3:GetObject", bucketObj, ImplicitDeny},
		{"specific resource does not match a star request", `{"Effect":"Allow","Action":"ec2:*","Resource":"arn:aws:ec2:*:*:instance/*"}`, "ec2:DescribeInstances", "*", ImplicitDeny},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Compile(Set{Identity: []Named{{Name: "id", Document: doc(t, Identity, tt.stmt)}}})
			if err != nil {
				t.Fatal(err)
			}
			if got := p.Decide(&Request{Principal: alice, Action: tt.action, Resource: tt.resource}); got != tt.want {
				t.Errorf("Decide = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestExplainNamesTheDecidingStatementsAndWhatWasMissing(t *testing.T) {
	idDoc, err := Parse([]byte(`{"Version":"2012-10-17","Statement":[
		{"Sid":"Read","Effect":"Allow","Action":"s3:GetObject","Resource":"*","Condition":{"IpAddress":{"aws:SourceIp":"10.0.0.0/8"}}},
		{"Sid":"NoSecrets","Effect":"Deny","Action":"s3:*","Resource":"arn:aws:s3:::secret/*"}]}`), Identity)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Compile(Set{
		Identity: []Named{{Name: "app-read", Document: idDoc}},
		Boundary: named("boundary", doc(t, Boundary, allowEC2)),
		SCPs:     [][]Named{{{Name: "FullAWSAccess", Document: doc(t, SCP, `{"Effect":"Allow","Action":"*","Resource":"*"}`)}}, {{Name: "ou-ec2-only", Document: doc(t, SCP, allowEC2)}}},
	})
	if err != nil {
		t.Fatal(err)
	}

	t.Run("explicit deny names the statement", func(t *testing.T) {
		r := p.Explain(&Request{Principal: alice, Action: "s3:GetObject", Resource: "arn:aws:s3:::secret/x"})
		if r.Decision != ExplicitDeny || len(r.Statements) != 1 || r.Statements[0].Sid != "NoSecrets" || r.Statements[0].Policy != "app-read" || r.Statements[0].Index != 1 {
			t.Fatalf("got %+v", r)
		}
	})
	t.Run("failed condition names key and values", func(t *testing.T) {
		var ctx Context
		ctx.Set("aws:SourceIp", "192.0.2.1")
		r := p.Explain(&Request{Principal: alice, Action: "s3:GetObject", Resource: bucketObj, Context: ctx})
		if r.Decision != ImplicitDeny {
			t.Fatalf("decision %v", r.Decision)
		}
		var cond *ConditionFailure
		codes := map[string]bool{}
		for _, reason := range r.Reasons {
			codes[reason.Code] = true
			if reason.Code == ReasonConditionFailed && reason.Statement.Sid == "Read" {
				cond = reason.Condition
			}
		}
		if cond == nil || cond.Key != "aws:SourceIp" || cond.Operator != "IpAddress" || cond.ContextValues[0] != "192.0.2.1" || cond.PolicyValues[0] != "10.0.0.0/8" {
			t.Errorf("condition failure not reported: %+v", r.Reasons)
		}
		if !codes[ReasonSCPNoAllow] || !codes[ReasonNoAllow] {
			t.Errorf("want SCP and no-allow reasons, got %+v", r.Reasons)
		}
	})
	t.Run("boundary that does not allow", func(t *testing.T) {
		var ctx Context
		ctx.Set("aws:SourceIp", "10.1.2.3")
		p2, _ := Compile(Set{Identity: []Named{{Name: "app-read", Document: idDoc}}, Boundary: named("boundary", doc(t, Boundary, allowEC2))})
		r := p2.Explain(&Request{Principal: alice, Action: "s3:GetObject", Resource: bucketObj, Context: ctx})
		if r.Decision != ImplicitDeny || len(r.Reasons) == 0 || r.Reasons[0].Code != ReasonBoundaryNoAllow {
			t.Errorf("got %+v", r)
		}
		if len(r.Statements) != 1 || r.Statements[0].Sid != "Read" {
			t.Errorf("the identity allow should be listed: %+v", r.Statements)
		}
	})
	t.Run("allowed names the allowing statement", func(t *testing.T) {
		var ctx Context
		ctx.Set("aws:sourceip", "10.1.2.3")
		p3, _ := Compile(Set{Identity: []Named{{Name: "app-read", Document: idDoc}}})
		r := p3.Explain(&Request{Principal: alice, Action: "s3:GetObject", Resource: bucketObj, Context: ctx})
		if r.Decision != Allowed || len(r.Statements) != 1 || r.Statements[0].Sid != "Read" {
			t.Errorf("got %+v", r)
		}
	})
}
