package analyze

import (
	"strings"
	"testing"

	"leash.dev/leash/policy"
)

func mustParse(t *testing.T, doc string) *policy.Document {
	t.Helper()
	d, err := policy.Parse([]byte(doc), policy.Identity)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestQuestionsSatisfyTheGrantedConditions(t *testing.T) {
	doc := mustParse(t, `{"Version":"2012-10-17","Statement":[
	  {"Effect":"Allow","Action":"ec2:RunInstances","Resource":"*","Condition":{
	    "StringEquals":{"aws:RequestedRegion":["eu-north-1","eu-west-1"]},
	    "StringNotEquals":{"ec2:InstanceType":"t3.nano"}}},
	  {"Effect":"Deny","Action":"iam:*","Resource":"*"}]}`)
	var regions []string
	for _, q := range Questions(doc, nil) {
		if q.Action != "ec2:RunInstances" || q.Resource != "*" {
			t.Errorf("question %+v: only the Allow statement's actions are asked", q)
		}
		if _, ok := q.Context["ec2:InstanceType"]; ok {
			t.Error("a key under a negated operator was put in the context")
		}
		regions = append(regions, strings.Join(q.Context["aws:RequestedRegion"], ","))
	}
	if strings.Join(regions, " ") != "eu-north-1 eu-west-1" {
		t.Errorf("regions asked = %v, want each granted region once", regions)
	}
}

func TestAskFindsWhatIsNotCovered(t *testing.T) {
	const principal = "arn:aws:iam::111122223333:user/root-a"
	covering := mustParse(t, `{"Version":"2012-10-17","Statement":[
	  {"Effect":"Allow","Action":["ec2:Describe*","s3:*"],"Resource":"*"},
	  {"Effect":"Allow","Action":"sqs:SendMessage","Resource":"arn:aws:sqs:*:*:krops-a"},
	  {"Effect":"Allow","Action":"ec2:RunInstances","Resource":"*","Condition":{"StringEquals":{"aws:RequestedRegion":"eu-north-1"}}},
	  {"Effect":"Allow","Action":"ec2:DeleteSecurityGroup","Resource":"*","Condition":{"Null":{"aws:ResourceTag/cluster":"false"}}},
	  {"Effect":"Allow","Action":"ec2:DeleteVolume","Resource":"*","Condition":{"StringEquals":{"aws:ResourceTag/cluster":"owned"}}}]}`)
	var set policy.Set
	set.Add(policy.Identity, policy.Named{Name: "root", Document: covering})
	compiled, err := policy.Compile(set)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, granted string
		gaps          []string
	}{
		{"a wildcard covers the actions it matches", `{"Effect":"Allow","Action":["ec2:DescribeInstances","s3:GetObject"],"Resource":"arn:aws:s3:::b/*"}`, nil},
		{"an action outside every grant is a gap", `{"Effect":"Allow","Action":["iam:CreateUser","s3:GetObject"],"Resource":"*"}`, []string{"iam:CreateUser"}},
		{"a resource pattern covered only in part is a gap", `{"Effect":"Allow","Action":"sqs:SendMessage","Resource":"arn:aws:sqs:*:*:krops-*"}`, []string{"sqs:SendMessage"}},
		{"the exact resource is covered", `{"Effect":"Allow","Action":"sqs:SendMessage","Resource":"arn:aws:sqs:*:*:krops-a"}`, nil},
		{"a grant for two regions is not covered by one", `{"Effect":"Allow","Action":"ec2:RunInstances","Resource":"*","Condition":{"StringEquals":{"aws:RequestedRegion":["eu-north-1","eu-west-1"]}}}`, []string{"ec2:RunInstances"}},
		{"a grant for the covered region is covered", `{"Effect":"Allow","Action":"ec2:RunInstances","Resource":"*","Condition":{"StringEquals":{"aws:RequestedRegion":"eu-north-1"}}}`, nil},
		// Null "false" holds when the key is in the request, whatever its value
		// (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_condition_operators.html#Conditions_Null).
		{"a grant on tagged resources is covered by the same Null condition", `{"Effect":"Allow","Action":"ec2:DeleteSecurityGroup","Resource":"*","Condition":{"Null":{"aws:ResourceTag/cluster":"false"}}}`, nil},
		{"a grant on tagged resources is not covered by one tag value", `{"Effect":"Allow","Action":"ec2:DeleteVolume","Resource":"*","Condition":{"Null":{"aws:ResourceTag/cluster":"false"}}}`, []string{"ec2:DeleteVolume"}},
		{"a grant on every resource is not covered by a grant on tagged ones", `{"Effect":"Allow","Action":"ec2:DeleteSecurityGroup","Resource":"*"}`, []string{"ec2:DeleteSecurityGroup"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := mustParse(t, `{"Version":"2012-10-17","Statement":[`+tt.granted+`]}`)
			var got []string
			for _, g := range Ask(compiled, principal, Questions(doc, nil)) {
				got = append(got, g.Action)
				if g.Why == "" {
					t.Errorf("gap %v has no reason", g)
				}
			}
			if strings.Join(got, ",") != strings.Join(tt.gaps, ",") {
				t.Errorf("gaps = %v, want %v", got, tt.gaps)
			}
		})
	}
}
