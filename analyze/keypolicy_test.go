package analyze

import (
	"testing"

	"leash.dev/leash/policy"
)

// A grant on a KMS key is asked under the key's default key policy, so
// that the same grant on "*" covers it, as IAM policies decide for a key
// whose key policy delegates to the account (AWS KMS Developer Guide,
// https://docs.aws.amazon.com/kms/latest/developerguide/key-policy-default.html#key-policy-default-allow-root-enable-iam).
// Without it no identity policy could ever cover a key.
func TestAskUnderTheDefaultKeyPolicy(t *testing.T) {
	covering := mustParse(t, `{"Version":"2012-10-17","Statement":[
	  {"Effect":"Allow","Action":"kms:DescribeKey","Resource":"*"},
	  {"Effect":"Allow","Action":"kms:Decrypt","Resource":"arn:aws:kms:us-east-1:111122223333:key/other"}]}`)
	var set policy.Set
	set.Add(policy.Identity, policy.Named{Name: "current", Document: covering})
	compiled, err := policy.Compile(set)
	if err != nil {
		t.Fatal(err)
	}
	const principal = "arn:aws:iam::111122223333:role/ccm"
	key := "arn:aws:kms:us-east-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab"
	for _, tt := range []struct {
		grant string
		gaps  int
	}{
		{`{"Effect":"Allow","Action":"kms:DescribeKey","Resource":"` + key + `"}`, 0},
		{`{"Effect":"Allow","Action":"kms:Decrypt","Resource":"` + key + `"}`, 1},
		{`{"Effect":"Allow","Action":"kms:Decrypt","Resource":"arn:aws:kms:us-east-1:111122223333:key/other"}`, 0},
	} {
		doc := mustParse(t, `{"Version":"2012-10-17","Statement":[`+tt.grant+`]}`)
		if gaps := Ask(compiled, principal, Questions(doc, nil)); len(gaps) != tt.gaps {
			t.Errorf("%s: gaps %v, want %d", tt.grant, gaps, tt.gaps)
		}
	}
	if KeyAccount("kms:Decrypt", key) != "111122223333" || KeyAccount("kms:Decrypt", "arn:aws:kms:us-east-1:111122223333:alias/x") != "" || KeyAccount("s3:GetObject", key) != "" {
		t.Error("KeyAccount names a key's account, and nothing else")
	}
}
