package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"testing"

	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"

	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/policy"
	"leash.dev/leash/policy/catalog"
)

func generated(t *testing.T, args ...string) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := run(args, &out); err != nil {
		t.Fatalf("accountgen %v: %v", args, err)
	}
	return out.Bytes()
}

// TestEncodedSnapshotIsTheAPIsShape reads the -encoded output with the
// SDK's own types, as a reader of the API's output does, and checks the
// account is whole: sizes as asked, every group and managed policy a
// principal names is in the snapshot, counts match the attachments, every
// document decodes and parses as its kind, and escalation grants and
// assume-role chains exist.
func TestEncodedSnapshotIsTheAPIsShape(t *testing.T) {
	raw := generated(t, "-seed", "7", "-principals", "50", "-policies", "40", "-encoded")
	var d iamclient.AccountDetails
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatalf("snapshot does not read into the SDK's types: %v", err)
	}
	if got := len(d.UserDetailList) + len(d.RoleDetailList); got != 50 {
		t.Errorf("principals = %d, want 50", got)
	}
	if len(d.UserDetailList) != 30 {
		t.Errorf("users = %d, want 30 (60%% of 50)", len(d.UserDetailList))
	}
	if len(d.Policies) != 40 {
		t.Errorf("managed policies = %d, want 40", len(d.Policies))
	}
	if len(d.GroupDetailList) == 0 {
		t.Error("no groups")
	}

	parse := func(where, encoded string, kind policy.Kind) *policy.Document {
		t.Helper()
		text, err := url.QueryUnescape(encoded)
		if err != nil {
			t.Fatalf("%s: document is not URL-encoded: %v", where, err)
		}
		doc, err := policy.Parse([]byte(text), kind)
		if err != nil {
			t.Fatalf("%s: document does not parse: %v", where, err)
		}
		checkActions(t, where, text)
		return doc
	}
	policies := map[string]int{} // ARN -> attachments counted below
	bounds := map[string]int{}
	for _, p := range d.Policies {
		policies[*p.Arn] = 0
		defaults := 0
		for _, v := range p.PolicyVersionList {
			parse(*p.Arn+" "+*v.VersionId, *v.Document, policy.Identity)
			if v.IsDefaultVersion {
				defaults++
				if *v.VersionId != *p.DefaultVersionId {
					t.Errorf("%s: default version %s, DefaultVersionId %s", *p.Arn, *v.VersionId, *p.DefaultVersionId)
				}
			}
		}
		if defaults != 1 {
			t.Errorf("%s: %d default versions, want 1", *p.Arn, defaults)
		}
	}
	attach := func(who string, l []iamtypes.AttachedPolicy) {
		for _, a := range l {
			if _, ok := policies[*a.PolicyArn]; !ok {
				t.Errorf("%s attaches %s, which is not in Policies", who, *a.PolicyArn)
			}
			policies[*a.PolicyArn]++
		}
	}
	groups := map[string]bool{}
	for _, g := range d.GroupDetailList {
		groups[*g.GroupName] = true
		attach(*g.GroupName, g.AttachedManagedPolicies)
		for _, ip := range g.GroupPolicyList {
			parse(*g.GroupName+" "+*ip.PolicyName, *ip.PolicyDocument, policy.Identity)
		}
	}
	countBoundary := func(b *iamtypes.AttachedPermissionsBoundary) {
		if b == nil {
			return
		}
		if b.PermissionsBoundaryType != iamtypes.PermissionsBoundaryAttachmentTypePolicy {
			t.Errorf("PermissionsBoundaryType %q, want the API's %q", b.PermissionsBoundaryType, iamtypes.PermissionsBoundaryAttachmentTypePolicy)
		}
		bounds[*b.PermissionsBoundaryArn]++
	}
	escalating := map[string]bool{}
	for _, u := range d.UserDetailList {
		for _, g := range u.GroupList {
			if !groups[g] {
				t.Errorf("user %s is in group %s, which is not in GroupDetailList", *u.UserName, g)
			}
		}
		attach(*u.UserName, u.AttachedManagedPolicies)
		countBoundary(u.PermissionsBoundary)
		for _, ip := range u.UserPolicyList {
			parse(*u.UserName+" "+*ip.PolicyName, *ip.PolicyDocument, policy.Identity)
			escalating[*ip.PolicyName] = true
		}
	}
	chained := 0
	for _, r := range d.RoleDetailList {
		parse(*r.RoleName+" trust", *r.AssumeRolePolicyDocument, policy.Trust)
		if strings.Contains(*r.AssumeRolePolicyDocument, url.QueryEscape(":role/")) {
			chained++
		}
		attach(*r.RoleName, r.AttachedManagedPolicies)
		countBoundary(r.PermissionsBoundary)
		for _, ip := range r.RolePolicyList {
			parse(*r.RoleName+" "+*ip.PolicyName, *ip.PolicyDocument, policy.Identity)
			escalating[*ip.PolicyName] = true
		}
	}
	for arn := range bounds {
		if _, ok := policies[arn]; !ok {
			t.Errorf("boundary %s is not in Policies", arn)
		}
	}
	for _, p := range d.Policies {
		if got := policies[*p.Arn]; int32(got) != *p.AttachmentCount {
			t.Errorf("%s: AttachmentCount %d, attached %d times", *p.Arn, *p.AttachmentCount, got)
		}
		if got := bounds[*p.Arn]; int32(got) != *p.PermissionsBoundaryUsageCount {
			t.Errorf("%s: PermissionsBoundaryUsageCount %d, used %d times", *p.Arn, *p.PermissionsBoundaryUsageCount, got)
		}
		if strings.HasPrefix(*p.Arn, "arn:aws:iam::aws:") && *p.AttachmentCount == 0 {
			t.Errorf("AWS managed %s is listed but attached nowhere; the API lists only those in use", *p.Arn)
		}
	}
	for _, name := range []string{"iam-admin", "pass-role-to-ec2", "create-access-keys", "assume-roles"} {
		if !escalating[name] {
			t.Errorf("no principal has the %s grant", name)
		}
	}
	if chained == 0 {
		t.Error("no role trusts another role: no assume-role chains")
	}
}

// TestDecodedDocumentsAreTheEncodedOnes pins that the default output, as
// the AWS CLI prints it, carries each document as a JSON object equal to
// the URL-decoded text of the -encoded output of the same seed.
func TestDecodedDocumentsAreTheEncodedOnes(t *testing.T) {
	var plain, enc struct {
		RoleDetailList []struct{ AssumeRolePolicyDocument json.RawMessage }
		Policies       []struct {
			PolicyVersionList []struct{ Document json.RawMessage }
		}
	}
	if err := json.Unmarshal(generated(t, "-seed", "3", "-principals", "50", "-policies", "40"), &plain); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(generated(t, "-seed", "3", "-principals", "50", "-policies", "40", "-encoded"), &enc); err != nil {
		t.Fatal(err)
	}
	same := func(where string, obj, str json.RawMessage) {
		t.Helper()
		if len(obj) == 0 || obj[0] != '{' {
			t.Fatalf("%s: document printed as %.20s, want a JSON object", where, obj)
		}
		var s string
		if err := json.Unmarshal(str, &s); err != nil {
			t.Fatalf("%s: encoded document is not a string: %v", where, err)
		}
		text, err := url.QueryUnescape(s)
		if err != nil {
			t.Fatal(err)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, obj); err != nil {
			t.Fatal(err)
		}
		if compact.String() != text {
			t.Fatalf("%s: printed %s, encoded %s", where, compact.String(), text)
		}
	}
	if len(plain.RoleDetailList) != len(enc.RoleDetailList) || len(plain.Policies) != len(enc.Policies) {
		t.Fatal("the two forms of one seed differ in size")
	}
	for i := range plain.RoleDetailList {
		same("role trust", plain.RoleDetailList[i].AssumeRolePolicyDocument, enc.RoleDetailList[i].AssumeRolePolicyDocument)
	}
	for i := range plain.Policies {
		for j := range plain.Policies[i].PolicyVersionList {
			same("policy version", plain.Policies[i].PolicyVersionList[j].Document, enc.Policies[i].PolicyVersionList[j].Document)
		}
	}
}

func TestSeedNamesOneAccount(t *testing.T) {
	a := generated(t, "-seed", "5", "-principals", "50", "-policies", "40")
	b := generated(t, "-seed", "5", "-principals", "50", "-policies", "40")
	c := generated(t, "-seed", "6", "-principals", "50", "-policies", "40")
	if !bytes.Equal(a, b) {
		t.Error("the same seed gave two different snapshots")
	}
	if bytes.Equal(a, c) {
		t.Error("seeds 5 and 6 gave the same snapshot")
	}
}

func TestBadFlagsAreUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no principals is refused", []string{"-principals", "0"}, "-principals 0: give 1 or more"},
		{"no policies is refused", []string{"-policies", "0"}, "-policies 0: give 1 or more"},
		{"a stray argument is refused", []string{"out.json"}, `unexpected argument "out.json"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := run(tc.args, &bytes.Buffer{})
			var usage usageError
			if !errors.As(err, &usage) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want a usage error containing %q", err, tc.want)
			}
		})
	}
}

// checkActions fails the test when a document names an action that matches
// nothing in the service catalog: generated accounts use AWS's actions.
func checkActions(t *testing.T, where, text string) {
	t.Helper()
	var d struct {
		Statement []struct{ Action, NotAction json.RawMessage }
	}
	if err := json.Unmarshal([]byte(text), &d); err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	cat := catalog.Default()
	for _, s := range d.Statement {
		for _, raw := range []json.RawMessage{s.Action, s.NotAction} {
			if raw == nil {
				continue
			}
			var list []string
			if err := json.Unmarshal(raw, &list); err != nil {
				var one string
				if err := json.Unmarshal(raw, &one); err != nil {
					t.Fatalf("%s: action %s is neither a string nor a list", where, raw)
				}
				list = []string{one}
			}
			for _, a := range list {
				if len(cat.Expand(a)) == 0 {
					t.Errorf("%s: action %q matches no action of the catalog", where, a)
				}
			}
		}
	}
}
