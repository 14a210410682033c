package whocan

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"leash.dev/leash/internal/inputerr"
)

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func answerJSON(t *testing.T, data []byte, q Question) string {
	t.Helper()
	s, err := Parse(data, "account.json")
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewModel(s, Org{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := m.WhoCanReach(q, m.Graph())
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteJSON(&b, a); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// The AWS CLI prints documents as objects; the API (and leash local through
// iamclient) gives them URL-encoded, page by page. Both are one account.
func TestParseEncodingsAndPagesAgree(t *testing.T) {
	objects := readTestdata(t, "../../../examples/check/account.json")
	encodedPages := readTestdata(t, "account-encoded-pages.json")
	var pages []json.RawMessage
	if err := json.Unmarshal(encodedPages, &pages); err != nil {
		t.Fatal(err)
	}
	concatenated := bytes.Join([][]byte{pages[0], pages[1]}, []byte("\n"))
	q := Question{Action: "s3:GetObject", Resource: "arn:aws:s3:::reports/q1.csv", All: true}
	want := answerJSON(t, objects, q)
	if !strings.Contains(want, "user/bob") {
		t.Fatalf("the object-encoded snapshot gave no answer for bob:\n%s", want)
	}
	for name, data := range map[string][]byte{
		"URL-encoded documents, array of pages":          encodedPages,
		"URL-encoded documents, pages one after another": concatenated,
	} {
		t.Run(name, func(t *testing.T) {
			if got := answerJSON(t, data, q); got != want {
				t.Errorf("answer differs from the object-encoded snapshot's:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

func TestParseRefusesWhatIsNotASnapshot(t *testing.T) {
	cases := []struct {
		name, data, want string
	}{
		{"a policy document", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:*","Resource":"*"}]}`, "is a policy document"},
		{"a CredentialsRequest as JSON", `{"apiVersion":"cloudcredential.openshift.io/v1","kind":"CredentialsRequest"}`, "is a Kubernetes manifest"},
		{"an object with none of the keys", `{}`, "has none of the keys UserDetailList"},
		{"a list of something else", `["alice","bob"]`, "does not have the API's shape"},
		{"an empty file", ``, "is empty"},
		{"not JSON", `UserDetailList: []`, "is not JSON"},
		{"a key with the wrong shape", `{"UserDetailList": {"UserName": "alice"}}`, "does not have the API's shape"},
		{"an attached managed policy whose default version does not parse",
			`{"UserDetailList":[{"UserName":"a","Arn":"arn:aws:iam::111122223333:user/a","AttachedManagedPolicies":[{"PolicyArn":"arn:aws:iam::111122223333:policy/p"}]}],` +
				`"Policies":[{"Arn":"arn:aws:iam::111122223333:policy/p","DefaultVersionId":"v1","PolicyVersionList":[{"VersionId":"v1","IsDefaultVersion":true,"Document":{"Statement":"x"}}]}]}`,
			"Policies[0].PolicyVersionList.Statement"},
		// A policy no one uses bears on no answer and is not parsed.
		{"an unused managed policy whose document does not parse",
			`{"UserDetailList":[],"Policies":[{"Arn":"arn:aws:iam::111122223333:policy/p","DefaultVersionId":"v1","PolicyVersionList":[{"VersionId":"v1","IsDefaultVersion":true,"Document":{"Statement":"x"}}]}]}`,
			""},
		{"a URL-encoded document that does not parse", `{"UserDetailList":[{"UserName":"a","Arn":"arn:aws:iam::111122223333:user/a","UserPolicyList":[{"PolicyName":"p","PolicyDocument":"%7B%22Statement%22%3A1%7D"}]}]}`, "UserDetailList[0].UserPolicyList[0].PolicyDocument.Statement"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.data), "in.json")
			if c.want == "" {
				if err != nil {
					t.Fatalf("Parse = %v, want no error", err)
				}
				return
			}
			var ie *inputerr.Error
			if !errors.As(err, &ie) {
				t.Fatalf("Parse = %v, want an *inputerr.Error", err)
			}
			if ie.Source != "in.json" || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q: want source in.json and %q", err, c.want)
			}
			if !strings.Contains(c.name, "not parse") && !strings.Contains(err.Error(), "aws iam get-account-authorization-details > account.json") {
				t.Errorf("error %q does not say how to produce a snapshot", err)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	if data, err := os.ReadFile("../../examples/check/account.json"); err == nil {
		f.Add(data)
	}
	f.Add([]byte(`{}`))
	f.Add([]byte(`[{"UserDetailList":[]}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data, "fuzz")
		if err != nil {
			var ie *inputerr.Error
			if !errors.As(err, &ie) {
				t.Fatalf("Parse error %v is not an *inputerr.Error", err)
			}
			return
		}
		// A parsed snapshot compiles or fails with an error; it never panics.
		_, _ = NewModel(s, Org{})
	})
}
