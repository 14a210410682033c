package whocan

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestDecodeSplitDecodesAsUnmarshal pins the parallel decoder of large
// snapshots to encoding/json's reading of the same bytes, and its refusal
// (so that the slow path words the error) of anything but one page object.
func TestDecodeSplitDecodesAsUnmarshal(t *testing.T) {
	files, err := filepath.Glob("testdata/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no snapshots in testdata: %v", err)
	}
	inputs := map[string][]byte{
		"strings holding brackets, quotes and escapes": []byte(`{"UserDetailList":[{"UserName":"a\"]}{[","Arn":"arn:aws:iam::111122223333:user/a","UserPolicyList":[{"PolicyName":"p","PolicyDocument":"%7B%22Version%22%3A%222012-10-17%22%7D"}]}], "Poli\u0063ies" : [ ] , "GroupDetailList":[]}`),
		"empty lists and spaces":                       []byte(" {\n\t\"RoleDetailList\" : [ ] \r\n} "),
		"null lists and boundary":                      []byte(`{"UserDetailList":[{"UserName":"a","Arn":"arn:aws:iam::111122223333:user/a","UserPolicyList":null,"GroupList":null,"AttachedManagedPolicies":[],"PermissionsBoundary":null}]}`),
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs[f] = data
	}
	for name, data := range inputs {
		var want page
		if err := json.Unmarshal(data, &want); err != nil {
			continue // not one page: covered below
		}
		got, ok := decodeSplit(data)
		if !ok {
			t.Errorf("%s: refused a page encoding/json reads", name)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: decoded differently from encoding/json", name)
		}
	}
	for name, data := range map[string]string{
		"two pages":                `{"UserDetailList":[]} {"RoleDetailList":[]}`,
		"an array of pages":        `[{"UserDetailList":[]}]`,
		"a list that is null":      `{"UserDetailList":null}`,
		"a list that is an object": `{"UserDetailList":{}}`,
		"an unterminated string":   `{"UserDetailList":[{"UserName":"a}]}`,
		"a bad element":            `{"UserDetailList":[{"UserName":7}]}`,
		"trailing text":            `{"UserDetailList":[]}x`,
		"a missing comma":          `{"UserDetailList":[] "Policies":[]}`,
		"a field in another case":  `{"UserDetailList":[{"userName":"a","Arn":"arn:aws:iam::111122223333:user/a"}]}`,
		"a list of another type":   `{"RoleDetailList":[{"RolePolicyList":{}}]}`,
	} {
		if _, ok := decodeSplit([]byte(data)); ok {
			t.Errorf("%s: accepted; the slow path must read it and word any error", name)
		}
	}
}
