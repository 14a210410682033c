package localaws

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"leash.dev/leash/localaws/audit"
	"leash.dev/leash/localaws/faults"
	"leash.dev/leash/localaws/internal/jsonrpc"
	"leash.dev/leash/localaws/internal/query"
	"leash.dev/leash/localaws/internal/sigv4"
)

// cloudTrailTarget is the X-Amz-Target prefix of CloudTrail's operations;
// the SDKs send it as is, and the service model's full name prefixes it
// with com.amazonaws.cloudtrail.v20131101.
const cloudTrailTarget = "CloudTrail_20131101"

// serveJSON answers a request of the AWS JSON 1.1 protocol: CloudTrail's
// LookupEvents over the audit log, so that `aws cloudtrail lookup-events`
// and leash audit --endpoint read leash local as they read AWS. It reports
// false for a request of another protocol (IAM's and STS's Query).
func (s *Server) serveJSON(w http.ResponseWriter, r *http.Request) bool {
	prefix, action, ok := jsonrpc.Target(r)
	if !ok {
		return false
	}
	c := &call{srv: s, ctx: r.Context(), requestID: newRequestID(), now: s.cfg.Now().UTC(), event: &audit.Event{}, service: "cloudtrail", action: action}
	c.sourceIP, _, _ = net.SplitHostPort(r.RemoteAddr)
	c.secure = r.TLS != nil
	result, jerr := s.handleCloudTrail(c, r, prefix)
	if s.cfg.AfterCall != nil {
		code := ""
		if jerr != nil {
			code = jerr.Code
		}
		s.cfg.AfterCall(c.action, code)
	}
	// In the log before the response, as every request (see ServeHTTP).
	var qerr *query.Error
	if jerr != nil {
		qerr = query.NewError(jerr.Status, jerr.Code, jerr.Message)
	}
	s.record(c, r, nil, qerr)
	w.Header().Set("Date", c.now.Format(http.TimeFormat))
	if jerr != nil {
		jsonrpc.WriteError(w, c.requestID, jerr)
	} else {
		jsonrpc.WriteResult(w, c.requestID, result)
	}
	return true
}

// lookupEvents authorizes LookupEvents as cloudtrail:LookupEvents on "*", as
// AWS does; the reading happens after the store transaction.
var lookupEvents = operation{
	readOnly: true,
	target: func(c *call) (target, error) {
		return target{resource: "*", resourceAccount: c.tx.Account().ID}, nil
	},
	run: func(*call) (any, error) { return nil, nil },
}

func (s *Server) handleCloudTrail(c *call, r *http.Request, prefix string) (any, *jsonrpc.Error) {
	switch s.faults.Next() {
	case faults.Throttle:
		return nil, &jsonrpc.Error{Status: http.StatusBadRequest, Code: "ThrottlingException", Message: "Rate exceeded"}
	case faults.ServerError:
		return nil, &jsonrpc.Error{Status: http.StatusInternalServerError, Code: "InternalFailure", Message: "The request processing has failed because of an unknown error, exception or failure."}
	}
	prefix = strings.TrimPrefix(prefix, "com.amazonaws.cloudtrail.v20131101.")
	if prefix != cloudTrailTarget || c.action != "LookupEvents" {
		return nil, &jsonrpc.Error{Status: http.StatusBadRequest, Code: "UnknownOperationException",
			Message: fmt.Sprintf("X-Amz-Target %s.%s: leash local serves CloudTrail's LookupEvents only (%s.LookupEvents)", prefix, c.action, cloudTrailTarget)}
	}
	body, err := readBody(r)
	if bodyTimedOut(err) {
		return nil, &jsonrpc.Error{Status: http.StatusBadRequest, Code: "RequestTimeout", Message: requestTimeout}
	}
	if err != nil {
		return nil, &jsonrpc.Error{Status: http.StatusBadRequest, Code: "SerializationException", Message: fmt.Sprintf("the request body could not be read or is larger than %d bytes", maxBody)}
	}
	if !isSigned(r) {
		return nil, &jsonrpc.Error{Status: http.StatusForbidden, Code: "MissingAuthenticationTokenException", Message: "Request is missing Authentication Token"}
	}
	signed, serr := s.verifySignature(r, body, c.now)
	if serr != nil {
		return nil, jsonAuthError(serr.Status, serr.Code, serr.Message)
	}
	if signed.Service != "cloudtrail" {
		return nil, &jsonrpc.Error{Status: http.StatusBadRequest, Code: "InvalidSignatureException", Message: fmt.Sprintf("Credential should be scoped to correct service: 'cloudtrail', not '%s'.", signed.Service)}
	}
	c.region, c.accessKeyID = signed.Region, signed.AccessKeyID
	c.event.RequestParameters = jsonParameters(body)
	var in lookupEventsInput
	if jerr := jsonrpc.Decode(r, body, &in); jerr != nil {
		return nil, jerr
	}
	if _, qerr := s.run(c, lookupEvents); qerr != nil {
		return nil, jsonAuthError(qerr.Status, qerr.Code, qerr.Message)
	}
	q, jerr := in.query()
	if jerr != nil {
		return nil, jerr
	}
	return s.lookup(q)
}

// jsonAuthError spells an authentication or authorization failure as the
// JSON services do. CloudTrail answers AccessDeniedException with HTTP 400,
// not IAM's 403 (CloudTrail API Reference, Common Errors:
// https://docs.aws.amazon.com/awscloudtrail/latest/APIReference/CommonErrors.html).
func jsonAuthError(status int, code, message string) *jsonrpc.Error {
	switch code {
	case "AccessDenied":
		code, status = "AccessDeniedException", http.StatusBadRequest
	case sigv4.CodeInvalidClientTokenID:
		code = "UnrecognizedClientException"
	case sigv4.CodeSignatureDoesNotMatch:
		code = "InvalidSignatureException"
	case "ExpiredToken":
		code = "ExpiredTokenException"
	case "Throttling":
		code = "ThrottlingException"
	case "MissingAuthenticationToken":
		code = "MissingAuthenticationTokenException"
	}
	return &jsonrpc.Error{Status: status, Code: code, Message: message}
}

// lookupEventsInput is LookupEvents' request.
type lookupEventsInput struct {
	LookupAttributes []struct {
		AttributeKey   string
		AttributeValue string
	}
	StartTime     *jsonrpc.Time
	EndTime       *jsonrpc.Time
	EventCategory string
	MaxResults    *int
	NextToken     string
}

// lookupQuery is a checked LookupEvents request.
type lookupQuery struct {
	key, value string
	start, end time.Time
	insight    bool
	max        int
	after      *lookupCursor
}

// lookupCursor is where a page ended: the place in the log of the oldest
// event returned. NextToken carries it with a digest of the query it
// belongs to.
type lookupCursor struct {
	Index int    `json:"i"`
	Query string `json:"q"`
}

// errPageEnd stops reading the log at a page's cursor.
var errPageEnd = errors.New("page end")

// lookupKeys are LookupEvents' attribute keys.
var lookupKeys = []string{"EventId", "EventName", "ReadOnly", "Username", "ResourceType", "ResourceName", "EventSource", "AccessKeyId"}

func (in *lookupEventsInput) query() (lookupQuery, *jsonrpc.Error) {
	q := lookupQuery{max: 50}
	if len(in.LookupAttributes) > 1 {
		return q, &jsonrpc.Error{Status: http.StatusBadRequest, Code: "InvalidLookupAttributesException", Message: fmt.Sprintf("LookupAttributes has %d attributes: give at most one", len(in.LookupAttributes))}
	}
	if len(in.LookupAttributes) == 1 {
		a := in.LookupAttributes[0]
		q.key, q.value = a.AttributeKey, a.AttributeValue
		switch {
		case !slices.Contains(lookupKeys, q.key):
			return q, &jsonrpc.Error{Status: http.StatusBadRequest, Code: "InvalidLookupAttributesException", Message: fmt.Sprintf("AttributeKey %q: give one of %s", q.key, strings.Join(lookupKeys, ", "))}
		case q.value == "" || len(q.value) > 2000:
			return q, &jsonrpc.Error{Status: http.StatusBadRequest, Code: "InvalidLookupAttributesException", Message: "AttributeValue: give 1 to 2000 characters"}
		case q.key == "ReadOnly" && q.value != "true" && q.value != "false":
			return q, &jsonrpc.Error{Status: http.StatusBadRequest, Code: "InvalidLookupAttributesException", Message: fmt.Sprintf("AttributeValue %q of ReadOnly: give true or false", q.value)}
		}
	}
	if in.StartTime != nil {
		q.start = in.StartTime.Time
	}
	if in.EndTime != nil {
		q.end = in.EndTime.Time
	}
	if !q.start.IsZero() && !q.end.IsZero() && q.start.After(q.end) {
		return q, &jsonrpc.Error{Status: http.StatusBadRequest, Code: "InvalidTimeRangeException", Message: "StartTime is after EndTime: give a StartTime at or before EndTime"}
	}
	switch in.EventCategory {
	case "":
	case "insight":
		q.insight = true
	default:
		return q, &jsonrpc.Error{Status: http.StatusBadRequest, Code: "InvalidEventCategoryException", Message: fmt.Sprintf("EventCategory %q: the only category is insight", in.EventCategory)}
	}
	if in.MaxResults != nil {
		if *in.MaxResults < 1 || *in.MaxResults > 50 {
			return q, &jsonrpc.Error{Status: http.StatusBadRequest, Code: "InvalidMaxResultsException", Message: fmt.Sprintf("MaxResults %d: give 1 to 50", *in.MaxResults)}
		}
		q.max = *in.MaxResults
	}
	if in.NextToken != "" {
		var cur lookupCursor
		raw, err := base64.RawURLEncoding.DecodeString(in.NextToken)
		if err == nil {
			err = json.Unmarshal(raw, &cur)
		}
		if err != nil || cur.Query != q.digest() {
			return q, &jsonrpc.Error{Status: http.StatusBadRequest, Code: "InvalidNextTokenException", Message: "NextToken is not one this query returned: repeat the query's attributes and times with the token, or leave it out to start over"}
		}
		q.after = &cur
	}
	return q, nil
}

// digest identifies the query a NextToken belongs to.
func (q *lookupQuery) digest() string {
	sum := sha256.Sum256(fmt.Appendf(nil, "%s\x00%s\x00%d\x00%d\x00%t", q.key, q.value, q.start.UnixNano(), q.end.UnixNano(), q.insight))
	return hex.EncodeToString(sum[:8])
}

// lookupEvent is one event of LookupEvents' answer.
type lookupEvent struct {
	EventID         string           `json:"EventId"`
	EventName       string           `json:"EventName"`
	ReadOnly        string           `json:"ReadOnly"`
	AccessKeyID     string           `json:"AccessKeyId,omitempty"`
	EventTime       jsonrpc.Time     `json:"EventTime"`
	EventSource     string           `json:"EventSource"`
	Username        string           `json:"Username,omitempty"`
	Resources       []lookupResource `json:"Resources,omitempty"`
	CloudTrailEvent string           `json:"CloudTrailEvent"`
}

type lookupResource struct {
	ResourceType string `json:"ResourceType,omitempty"`
	ResourceName string `json:"ResourceName,omitempty"`
}

type lookupEventsOutput struct {
	Events    []lookupEvent `json:"Events"`
	NextToken string        `json:"NextToken,omitempty"`
}

// lookup reads the audit log, which holds every answered request (each is
// written before its response), and returns one page of the matching
// events, newest first.
func (s *Server) lookup(q lookupQuery) (*lookupEventsOutput, *jsonrpc.Error) {
	failure := &jsonrpc.Error{Status: http.StatusInternalServerError, Code: "InternalFailure", Message: "the audit log could not be read"}
	out := &lookupEventsOutput{Events: []lookupEvent{}}
	if q.insight {
		return out, nil // leash local has no Insights events
	}
	file, err := os.Open(filepath.Join(s.cfg.DataDir, audit.FileName))
	if err != nil {
		s.cfg.Log.Warn("audit log", "err", err)
		return nil, failure
	}
	defer func() { _ = file.Close() }()
	f := audit.Filter{Since: q.start}
	if !q.end.IsZero() {
		f.Until = q.end.Add(time.Nanosecond) // EndTime is inclusive
	}
	// The log is in the order requests were answered, oldest first. A page
	// is the last q.max matches before the cursor, so reading keeps only
	// those and stops at the cursor: memory is one page whatever the log's
	// size.
	type found struct {
		index int
		e     *audit.Event
		le    lookupEvent
	}
	page := make([]found, 0, q.max)
	more := false
	index := 0
	if _, err := audit.Read(file, audit.Filter{}, func(e *audit.Event) error {
		index++
		if q.after != nil && index >= q.after.Index {
			return errPageEnd
		}
		if !f.Match(e) {
			return nil
		}
		le := toLookupEvent(e)
		if q.key != "" && !le.has(q.key, q.value) {
			return nil
		}
		if len(page) == q.max {
			copy(page, page[1:])
			page = page[:q.max-1]
			more = true // an older match is left for the next page
		}
		page = append(page, found{index, e, le})
		return nil
	}); err != nil && !errors.Is(err, errPageEnd) {
		s.cfg.Log.Warn("audit log", "err", err)
		return nil, failure
	}
	for i := len(page) - 1; i >= 0; i-- { // newest first
		record, err := page[i].e.Record()
		if err != nil {
			return nil, failure
		}
		le := page[i].le
		le.CloudTrailEvent = string(record)
		out.Events = append(out.Events, le)
	}
	if more {
		token, _ := json.Marshal(lookupCursor{Index: page[0].index, Query: q.digest()})
		out.NextToken = base64.RawURLEncoding.EncodeToString(token)
	}
	return out, nil
}

// toLookupEvent is a record as LookupEvents summarizes it.
func toLookupEvent(e *audit.Event) lookupEvent {
	le := lookupEvent{
		EventID: e.EventID, EventName: e.EventName, ReadOnly: fmt.Sprint(e.ReadOnly), AccessKeyID: e.UserIdentity.AccessKeyID,
		EventTime: jsonrpc.Time{Time: e.EventTime}, EventSource: e.EventSource, Username: lookupUsername(&e.UserIdentity),
	}
	if arn := e.AuthorizedResource(); arn != "" && arn != "*" {
		le.Resources = append(le.Resources, lookupResource{ResourceType: resourceType(arn), ResourceName: arn})
	}
	for _, r := range e.Resources {
		le.Resources = append(le.Resources, lookupResource{ResourceType: r.Type, ResourceName: r.ARN})
	}
	return le
}

// has reports whether the event matches a lookup attribute.
func (le *lookupEvent) has(key, value string) bool {
	switch key {
	case "EventId":
		return le.EventID == value
	case "EventName":
		return le.EventName == value
	case "ReadOnly":
		return le.ReadOnly == value
	case "Username":
		return le.Username == value
	case "EventSource":
		return le.EventSource == value
	case "AccessKeyId":
		return le.AccessKeyID == value
	case "ResourceType", "ResourceName":
		for _, r := range le.Resources {
			if key == "ResourceType" && r.ResourceType == value || key == "ResourceName" && r.ResourceName == value {
				return true
			}
		}
	}
	return false
}

// lookupUsername is the caller's name as LookupEvents gives it: a user's
// name, or the session name of an assumed role, or a federated user's name.
func lookupUsername(id *audit.Identity) string {
	if id.UserName != "" {
		return id.UserName
	}
	for _, kind := range []string{":assumed-role/", ":federated-user/"} {
		if i := strings.Index(id.ARN, kind); i >= 0 {
			rest := id.ARN[i+len(kind):]
			return rest[strings.LastIndexByte(rest, '/')+1:]
		}
	}
	return ""
}

// resourceType is CloudTrail's type of an IAM resource ARN, "" for others.
func resourceType(arn string) string {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) != 6 || parts[2] != "iam" {
		return ""
	}
	kind, _, _ := strings.Cut(parts[5], "/")
	switch kind {
	case "user":
		return "AWS::IAM::User"
	case "role":
		return "AWS::IAM::Role"
	case "policy":
		return "AWS::IAM::Policy"
	case "group":
		return "AWS::IAM::Group"
	case "instance-profile":
		return "AWS::IAM::InstanceProfile"
	case "oidc-provider":
		return "AWS::IAM::OIDCProvider"
	case "saml-provider":
		return "AWS::IAM::SAMLProvider"
	}
	return ""
}
