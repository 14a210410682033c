package query_test

import (
	"bytes"
	"encoding/xml"
	"flag"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"leash.dev/leash/localaws/internal/query"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ from the output")

// user is how a handler declares IAM's User shape.
type user struct {
	Path       string          `xml:"Path"`
	UserName   string          `xml:"UserName"`
	UserID     string          `xml:"UserId"`
	Arn        string          `xml:"Arn"`
	CreateDate query.Timestamp `xml:"CreateDate"`
	// PasswordLastUsed is optional: the zero time writes nothing.
	PasswordLastUsed query.Timestamp `xml:"PasswordLastUsed"`
	// Tags is an optional list, left out when empty as IAM does.
	Tags query.OptionalList[query.Tag] `xml:"Tags"`
}

type createUserResult struct {
	User user `xml:"User"`
}

// listUsersResult declares the list ListUsers always has as a slice with a
// member path, written <Users></Users> when there are no users.
type listUsersResult struct {
	Users       []user `xml:"Users>member"`
	IsTruncated bool   `xml:"IsTruncated"`
	Marker      string `xml:"Marker,omitempty"`
}

const requestID = "7a62c49f-347e-4fc4-9331-6e8eEXAMPLE"

var created = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func alice() user {
	return user{
		Path: "/", UserName: "alice", UserID: "AIDAEXAMPLEALICE00001", Arn: "arn:aws:iam::123456789012:user/alice",
		CreateDate: query.Timestamp(created),
	}
}

func TestWriteResult(t *testing.T) {
	tagged := alice()
	tagged.Tags = query.OptionalList[query.Tag]{{Key: "team", Value: "a&b <c>"}}
	tests := []struct {
		name      string // also the golden file's name
		namespace string
		action    string
		result    any
	}{
		{"create-user", query.IAMNamespace, "CreateUser", createUserResult{User: alice()}},
		{"create-user-tagged", query.IAMNamespace, "CreateUser", &createUserResult{User: tagged}},
		{"list-users-truncated", query.IAMNamespace, "ListUsers", listUsersResult{Users: []user{alice(), alice()}, IsTruncated: true, Marker: "m2"}},
		{"list-users-empty", query.IAMNamespace, "ListUsers", listUsersResult{}},
		{"delete-user", query.IAMNamespace, "DeleteUser", nil},
		{"get-caller-identity", query.STSNamespace, "GetCallerIdentity", struct {
			UserID  string `xml:"UserId"`
			Account string `xml:"Account"`
			Arn     string `xml:"Arn"`
		}{"AIDAEXAMPLEALICE00001", "123456789012", "arn:aws:iam::123456789012:user/alice"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			query.WriteResult(w, tt.namespace, tt.action, tt.result, requestID)
			if w.Code != http.StatusOK {
				t.Fatalf("status = %d; want 200; body:\n%s", w.Code, w.Body)
			}
			checkHeaders(t, w)
			checkGolden(t, tt.name, w.Body.Bytes())
		})
	}
}

func TestWriteResultOfAnUnencodableResultIsInternalFailure(t *testing.T) {
	w := httptest.NewRecorder()
	query.WriteResult(w, query.IAMNamespace, "ListUsers", struct{ Users map[string]string }{}, requestID)
	if w.Code != http.StatusInternalServerError {
		t.Fatalf("status = %d; want 500", w.Code)
	}
	body := w.Body.String()
	if !strings.Contains(body, "<Code>InternalFailure</Code>") || !strings.Contains(body, "encode the ListUsers result") {
		t.Errorf("body does not report the encoding failure:\n%s", body)
	}
	if strings.Contains(body, "ListUsersResponse") {
		t.Errorf("body holds part of the result:\n%s", body)
	}
}

func TestWriteResultRefusesAnActionThatIsNotAnElementName(t *testing.T) {
	w := httptest.NewRecorder()
	query.WriteResult(w, query.IAMNamespace, "List<Users", nil, requestID)
	if w.Code != http.StatusInternalServerError {
		t.Fatalf("status = %d; want 500", w.Code)
	}
	if err := xml.Unmarshal(w.Body.Bytes(), new(struct{})); err != nil {
		t.Errorf("error body is not XML: %v\n%s", err, w.Body)
	}
}

func TestWriteError(t *testing.T) {
	tests := []struct {
		name       string // also the golden file's name
		namespace  string
		err        *query.Error
		wantStatus int
	}{
		{"no-such-entity", query.IAMNamespace, query.NoSuchEntity("The user with name bob cannot be found."), 404},
		{"expired-token", query.STSNamespace, query.ExpiredToken(""), 403},
		{"service-failure-is-receiver", query.IAMNamespace, query.ServiceFailure("store unavailable"), 500},
		{"message-is-escaped", query.IAMNamespace, query.MalformedPolicyDocument(`Syntax error at "<" & '>'` + "\n"), 400},
		{"nil-is-internal-failure", query.IAMNamespace, nil, 500},
		{"no-status-is-500-receiver", query.IAMNamespace, &query.Error{Code: "Odd", Message: "no status"}, 500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			query.WriteError(w, tt.namespace, tt.err, requestID)
			if w.Code != tt.wantStatus {
				t.Errorf("status = %d; want %d", w.Code, tt.wantStatus)
			}
			checkHeaders(t, w)
			checkGolden(t, "error-"+tt.name, w.Body.Bytes())
		})
	}
}

func TestErrorConstructors(t *testing.T) {
	tests := []struct {
		name       string
		err        *query.Error
		wantStatus int
		wantCode   string
	}{
		// Modeled errors: code and status from the awsQueryError trait in
		// the SDK's service/iam/schemas and service/sts/schemas.
		{"NoSuchEntity is 404", query.NoSuchEntity("m"), 404, "NoSuchEntity"},
		{"EntityAlreadyExists is 409", query.EntityAlreadyExists("m"), 409, "EntityAlreadyExists"},
		{"DeleteConflict is 409", query.DeleteConflict("m"), 409, "DeleteConflict"},
		{"LimitExceeded is 409, as IAM's model has it", query.LimitExceeded("m"), 409, "LimitExceeded"},
		{"ConcurrentModification is 409", query.ConcurrentModification("m"), 409, "ConcurrentModification"},
		{"MalformedPolicyDocument is 400", query.MalformedPolicyDocument("m"), 400, "MalformedPolicyDocument"},
		{"InvalidInput is 400", query.InvalidInput("m"), 400, "InvalidInput"},
		{"UnmodifiableEntity is 400", query.UnmodifiableEntity("m"), 400, "UnmodifiableEntity"},
		{"PolicyNotAttachable is 400", query.PolicyNotAttachable("m"), 400, "PolicyNotAttachable"},
		{"ServiceFailure is 500", query.ServiceFailure("m"), 500, "ServiceFailure"},
		{"STS's ExpiredTokenException is 400", query.ExpiredIdentityToken("m"), 400, "ExpiredTokenException"},
		{"InvalidIdentityToken is 400", query.InvalidIdentityToken("m"), 400, "InvalidIdentityToken"},
		{"IDPRejectedClaim is 403", query.IDPRejectedClaim("m"), 403, "IDPRejectedClaim"},
		{"IDPCommunicationError is 400", query.IDPCommunicationError("m"), 400, "IDPCommunicationError"},
		{"PackedPolicyTooLarge is 400", query.PackedPolicyTooLarge("m"), 400, "PackedPolicyTooLarge"},
		{"RegionDisabledException is 403", query.RegionDisabled("m"), 403, "RegionDisabledException"},
		// Common errors.
		{"ValidationError is 400", query.ValidationError("m"), 400, "ValidationError"},
		{"MalformedInput is 400", query.MalformedInput("m"), 400, "MalformedInput"},
		{"MalformedQueryString is 404", query.MalformedQueryString("m"), 404, "MalformedQueryString"},
		{"MissingAction is 400", query.MissingAction(), 400, "MissingAction"},
		{"InvalidAction is 400", query.InvalidAction("Frobnicate", "2010-05-08"), 400, "InvalidAction"},
		{"MissingParameter is 400", query.MissingParameter("Version"), 400, "MissingParameter"},
		{"AccessDenied is 403", query.AccessDenied("m"), 403, "AccessDenied"},
		{"Throttling is 400", query.Throttling(""), 400, "Throttling"},
		{"InternalFailure is 500", query.InternalFailure("m"), 500, "InternalFailure"},
		{"ServiceUnavailable is 503", query.ServiceUnavailable("m"), 503, "ServiceUnavailable"},
		{"InvalidClientTokenId is 403", query.InvalidClientTokenID(""), 403, "InvalidClientTokenId"},
		{"SignatureDoesNotMatch is 403", query.SignatureDoesNotMatch("m"), 403, "SignatureDoesNotMatch"},
		{"IncompleteSignature is 400", query.IncompleteSignature("m"), 400, "IncompleteSignature"},
		{"MissingAuthenticationToken is 403", query.MissingAuthenticationToken(""), 403, "MissingAuthenticationToken"},
		{"RequestExpired is 400", query.RequestExpired("m"), 400, "RequestExpired"},
		{"ExpiredToken is 403", query.ExpiredToken(""), 403, "ExpiredToken"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantType := query.Sender
			if tt.wantStatus >= 500 {
				wantType = query.Receiver
			}
			if tt.err.Status != tt.wantStatus || tt.err.Code != tt.wantCode || tt.err.Type != wantType {
				t.Errorf("error = %d %s %s; want %d %s %s", tt.err.Status, tt.err.Type, tt.err.Code, tt.wantStatus, wantType, tt.wantCode)
			}
			if tt.err.Message == "" {
				t.Error("no message")
			}
		})
	}
}

func TestInvalidActionIsWordedAsAWSWordsIt(t *testing.T) {
	got := query.InvalidAction("Frobnicate", "2010-05-08").Message
	if want := "Could not find operation Frobnicate for version 2010-05-08"; got != want {
		t.Errorf("message = %q; want %q", got, want)
	}
}

func TestPolicyDocument(t *testing.T) {
	tests := []struct {
		name, doc, want string
	}{
		{"unreserved characters stay", "AZaz09-._~", "AZaz09-._~"},
		{"JSON punctuation is escaped", `{"a":["*"]}`, "%7B%22a%22%3A%5B%22%2A%22%5D%7D"},
		{"a space is %20, never +", "a b", "a%20b"},
		{"a plus is escaped, so decoders that read + as space agree", "a+b", "a%2Bb"},
		{"newlines and tabs are escaped", "\n\t", "%0A%09"},
		{"UTF-8 is escaped byte by byte", "é", "%C3%A9"},
		{"percent is escaped", "100%", "100%25"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := query.PolicyDocument(tt.doc)
			if got != tt.want {
				t.Errorf("PolicyDocument(%q) = %q; want %q", tt.doc, got, tt.want)
			}
			for name, unescape := range map[string]func(string) (string, error){
				"QueryUnescape": url.QueryUnescape, "PathUnescape": url.PathUnescape,
			} {
				if back, err := unescape(got); err != nil || back != tt.doc {
					t.Errorf("%s(%q) = %q, %v; want %q", name, got, back, err, tt.doc)
				}
			}
		})
	}
}

func TestTimestampIsUTCToTheSecond(t *testing.T) {
	local := time.Date(2026, 3, 1, 13, 0, 0, 999_000_000, time.FixedZone("CET", 3600))
	out, err := xml.Marshal(struct {
		XMLName xml.Name        `xml:"R"`
		At      query.Timestamp `xml:"At"`
		Never   query.Timestamp `xml:"Never"`
	}{At: query.Timestamp(local)})
	if err != nil {
		t.Fatal(err)
	}
	if want := "<R><At>2026-03-01T12:00:00Z</At></R>"; string(out) != want {
		t.Errorf("got %s; want %s", out, want)
	}
}

func TestNewRequestIDIsAVersion4UUID(t *testing.T) {
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	a, b := query.NewRequestID(), query.NewRequestID()
	if !uuid.MatchString(a) {
		t.Errorf("NewRequestID() = %q; want a version 4 UUID", a)
	}
	if a == b {
		t.Errorf("two request IDs are both %q", a)
	}
}

func checkHeaders(t *testing.T, w *httptest.ResponseRecorder) {
	t.Helper()
	if got := w.Header().Get("Content-Type"); got != "text/xml" {
		t.Errorf("Content-Type = %q; want text/xml", got)
	}
	if got := w.Header().Get("x-amzn-RequestId"); got != requestID {
		t.Errorf("x-amzn-RequestId = %q; want %q", got, requestID)
	}
}

// checkGolden compares got with testdata/name.xml, or rewrites the file
// under -update. The file holds the body indented for reading; the body
// itself is compared with the indentation removed.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	if err := xml.Unmarshal(got, new(struct{})); err != nil {
		t.Fatalf("body is not well-formed XML: %v\n%s", err, got)
	}
	path := filepath.Join("testdata", name+".xml")
	if *update {
		if err := os.WriteFile(path, indent(t, got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if !bytes.Equal(indent(t, got), want) {
		t.Errorf("body differs from %s:\n got: %s\nwant: %s", path, indent(t, got), want)
	}
}

// indent re-encodes an XML document one element a line.
func indent(t *testing.T, doc []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	dec := xml.NewDecoder(bytes.NewReader(doc))
	enc := xml.NewEncoder(&out)
	enc.Indent("", "  ")
	for {
		tok, err := dec.RawToken()
		if err != nil {
			break
		}
		if err := enc.EncodeToken(xml.CopyToken(tok)); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Flush(); err != nil {
		t.Fatal(err)
	}
	out.WriteByte('\n')
	return out.Bytes()
}
