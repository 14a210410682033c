package query_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"leash.dev/leash/localaws/internal/query"
)

const form = "application/x-www-form-urlencoded"

// parse parses body as the form-encoded body of a POST to /.
func parse(t testing.TB, body string) (*query.Request, *query.Error) {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "/", nil)
	r.Header.Set("Content-Type", form)
	return query.Parse(r, []byte(body))
}

// mustParse parses body and fails the test if it is refused.
func mustParse(t testing.TB, body string) *query.Request {
	t.Helper()
	req, err := parse(t, body)
	if err != nil {
		t.Fatalf("Parse(%q): %v", body, err)
	}
	return req
}

func TestParse(t *testing.T) {
	tests := []struct {
		name        string
		method      string
		target      string
		contentType string
		body        string
		wantAction  string
		wantVersion string
		wantParam   string // a parameter to read back
		wantValue   string
		wantCode    string
		wantStatus  int
	}{
		{
			name: "POST body gives the action, the version and the parameters", method: "POST", target: "/", contentType: form,
			body:       "Action=CreateUser&Version=2010-05-08&UserName=alice",
			wantAction: "CreateUser", wantVersion: "2010-05-08", wantParam: "UserName", wantValue: "alice",
		},
		{
			name: "content type may carry a charset", method: "POST", target: "/", contentType: form + "; charset=utf-8",
			body:       "Action=GetCallerIdentity&Version=2011-06-15",
			wantAction: "GetCallerIdentity", wantVersion: "2011-06-15",
		},
		{
			name: "body without a content type is read as a form", method: "POST", target: "/",
			body:       "Action=ListUsers&Version=2010-05-08",
			wantAction: "ListUsers", wantVersion: "2010-05-08",
		},
		{
			name: "GET reads the URL query, as a presigned GetCallerIdentity sends it", method: "GET",
			target:     "/?Action=GetCallerIdentity&Version=2011-06-15&X-Amz-Algorithm=AWS4-HMAC-SHA256",
			wantAction: "GetCallerIdentity", wantVersion: "2011-06-15", wantParam: "X-Amz-Algorithm", wantValue: "AWS4-HMAC-SHA256",
		},
		{
			name: "POST merges the URL query and the body", method: "POST", target: "/?Version=2010-05-08", contentType: form,
			body:       "Action=ListUsers",
			wantAction: "ListUsers", wantVersion: "2010-05-08",
		},
		{
			name: "percent-encoding and + decode as the SDK encodes them", method: "POST", target: "/", contentType: form,
			body:       "Action=PutUserPolicy&Version=2010-05-08&PolicyDocument=%7B%22a%22%3A+%22b%2Bc%22%7D",
			wantAction: "PutUserPolicy", wantVersion: "2010-05-08", wantParam: "PolicyDocument", wantValue: `{"a": "b+c"}`,
		},
		{
			name: "missing Action is MissingAction", method: "POST", target: "/", contentType: form,
			body:     "Version=2010-05-08&UserName=alice",
			wantCode: "MissingAction", wantStatus: 400,
		},
		{
			name: "empty Action is MissingAction", method: "POST", target: "/", contentType: form,
			body:     "Action=&Version=2010-05-08",
			wantCode: "MissingAction", wantStatus: 400,
		},
		{
			name: "missing Version is MissingParameter", method: "POST", target: "/", contentType: form,
			body:     "Action=ListUsers",
			wantCode: "MissingParameter", wantStatus: 400,
		},
		{
			name: "an Action that cannot be an operation name is InvalidAction", method: "POST", target: "/", contentType: form,
			body:     "Action=List%3CUsers%3E&Version=2010-05-08",
			wantCode: "InvalidAction", wantStatus: 400,
		},
		{
			name: "an Action starting with a digit cannot be an element name and is InvalidAction", method: "POST", target: "/", contentType: form,
			body:     "Action=0&Version=2010-05-08",
			wantCode: "InvalidAction", wantStatus: 400,
		},
		{
			name: "a parameter given twice is refused", method: "POST", target: "/", contentType: form,
			body:     "Action=CreateUser&Version=2010-05-08&UserName=alice&UserName=bob",
			wantCode: "MalformedInput", wantStatus: 400,
		},
		{
			name: "a parameter in both the URL and the body is refused", method: "POST", target: "/?UserName=bob", contentType: form,
			body:     "Action=CreateUser&Version=2010-05-08&UserName=alice",
			wantCode: "MalformedInput", wantStatus: 400,
		},
		{
			name: "a bad percent escape is MalformedQueryString", method: "POST", target: "/", contentType: form,
			body:     "Action=ListUsers&Version=2010-05-08&Marker=%zz",
			wantCode: "MalformedQueryString", wantStatus: 404,
		},
		{
			name: "a semicolon separator is MalformedQueryString", method: "POST", target: "/", contentType: form,
			body:     "Action=ListUsers;Version=2010-05-08",
			wantCode: "MalformedQueryString", wantStatus: 404,
		},
		{
			name: "a value that is not UTF-8 is MalformedQueryString", method: "POST", target: "/", contentType: form,
			body:     "Action=TagUser&Version=2010-05-08&Tags.member.1.Value=%FF",
			wantCode: "MalformedQueryString", wantStatus: 404,
		},
		{
			name: "a JSON body is refused with the content type to use", method: "POST", target: "/", contentType: "application/x-amz-json-1.1",
			body:     `{"Action":"ListUsers"}`,
			wantCode: "MalformedQueryString", wantStatus: 404,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(tt.method, tt.target, nil)
			if tt.contentType != "" {
				r.Header.Set("Content-Type", tt.contentType)
			}
			req, err := query.Parse(r, []byte(tt.body))
			if tt.wantCode != "" {
				if err == nil {
					t.Fatalf("Parse accepted the request as %s; want %s", req.Action, tt.wantCode)
				}
				if err.Code != tt.wantCode || err.Status != tt.wantStatus || err.Type != query.Sender {
					t.Fatalf("error = %d %s %s %q; want %d Sender %s", err.Status, err.Type, err.Code, err.Message, tt.wantStatus, tt.wantCode)
				}
				if err.Message == "" {
					t.Error("error has no message")
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if req.Action != tt.wantAction || req.Version != tt.wantVersion {
				t.Errorf("Action, Version = %q, %q; want %q, %q", req.Action, req.Version, tt.wantAction, tt.wantVersion)
			}
			if tt.wantParam != "" {
				if got, ok := req.String(tt.wantParam); !ok || got != tt.wantValue {
					t.Errorf("String(%q) = %q, %v; want %q, true", tt.wantParam, got, ok, tt.wantValue)
				}
			}
		})
	}
}

func TestParseDoesNotReadTheBodyStream(t *testing.T) {
	// The caller reads the body once, for SigV4 and for Parse.
	r := httptest.NewRequest(http.MethodPost, "/", errReader{t})
	r.Header.Set("Content-Type", form)
	if _, err := query.Parse(r, []byte("Action=ListUsers&Version=2010-05-08")); err != nil {
		t.Fatal(err)
	}
}

type errReader struct{ t *testing.T }

func (e errReader) Read([]byte) (int, error) {
	e.t.Error("Parse read r.Body")
	return 0, nil
}
