package analyze

import (
	"strings"
	"testing"

	"leash.dev/leash/policy"
)

func compileAll(t *testing.T, docs ...*policy.Document) *policy.Policies {
	t.Helper()
	var set policy.Set
	for i, d := range docs {
		set.Add(policy.Identity, policy.Named{Name: string(rune('a' + i)), Document: d})
	}
	p, err := policy.Compile(set)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestUnionGrantsExactlyWhatTheInputsGrant merges three controllers'
// policies for one principal, as the seed runbook does by hand, and checks
// both ways with the engine: the union covers every input grant, and the
// inputs together cover every union grant (it widens nothing).
func TestUnionGrantsExactlyWhatTheInputsGrant(t *testing.T) {
	const principal = "arn:aws:iam::111122223333:user/krops-controllers"
	inputs := []*policy.Document{
		mustParse(t, `{"Version":"2012-10-17","Statement":[
		  {"Effect":"Allow","Action":["s3:ListAllMyBuckets","s3:GetBucketLocation"],"Resource":"*"},
		  {"Effect":"Allow","Action":["s3:GetBucket*","s3:GetBucketTagging","s3:PutBucket*","s3:CreateBucket"],"Resource":"arn:aws:s3:::krops-*"}]}`),
		mustParse(t, `{"Version":"2012-10-17","Statement":[
		  {"Effect":"Allow","Action":["rds:Describe*","rds:ListTagsForResource","kms:DescribeKey"],"Resource":"*"},
		  {"Effect":"Allow","Action":["kms:CreateGrant"],"Resource":"*","Condition":{"Bool":{"kms:GrantIsForAWSResource":"true"}}}]}`),
		mustParse(t, `{"Version":"2012-10-17","Statement":[
		  {"Effect":"Allow","Action":["iam:CreateRole","iam:GetRole","s3:ListAllMyBuckets"],"Resource":"arn:aws:iam::*:role/krops-*"},
		  {"Effect":"Allow","Action":["kms:DescribeKey"],"Resource":"*"}]}`),
	}
	data, err := Union(inputs)
	if err != nil {
		t.Fatal(err)
	}
	union := mustParse(t, string(data))
	if gaps := Ask(compileAll(t, union), principal, Questions(compileDocs(inputs), nil)); len(gaps) > 0 {
		t.Errorf("the union lacks input grants: %v\n%s", gaps, data)
	}
	if gaps := Ask(compileAll(t, inputs...), principal, Questions(union, nil)); len(gaps) > 0 {
		t.Errorf("the union grants more than the inputs: %v\n%s", gaps, data)
	}
	text := string(data)
	if strings.Contains(text, `"s3:GetBucketTagging"`) {
		t.Errorf("s3:GetBucketTagging is kept beside s3:GetBucket* in the same statement:\n%s", text)
	}
	if strings.Count(text, `"kms:DescribeKey"`) != 1 {
		t.Errorf("kms:DescribeKey on * appears more than once:\n%s", text)
	}
	if strings.Count(text, `"Effect"`) != 4 {
		t.Errorf("want 4 statements (by resource and condition), got:\n%s", text)
	}
}

// compileDocs joins documents' statements into one, for Questions.
func compileDocs(docs []*policy.Document) *policy.Document {
	all := &policy.Document{Version: policy.Version2012}
	for _, d := range docs {
		all.Statements = append(all.Statements, d.Statements...)
	}
	return all
}
