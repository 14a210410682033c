package localaws

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"time"

	"leash.dev/leash/localaws/audit"
	"leash.dev/leash/localaws/faults"
	"leash.dev/leash/localaws/internal/authz"
	"leash.dev/leash/localaws/internal/query"
	"leash.dev/leash/localaws/internal/sigv4"
	"leash.dev/leash/localaws/internal/store"
	"leash.dev/leash/policy"
)

var namespaces = map[string]string{"iam": query.IAMNamespace, "sts": query.STSNamespace}

// services maps API versions to services, for requests that carry no
// signature (AssumeRoleWithWebIdentity and AssumeRoleWithSAML).
var services = map[string]string{"2010-05-08": "iam", "2011-06-15": "sts"}

// ServeHTTP runs one request through the pipeline: faults, signature,
// parameters, caller, authorization, operation, response, audit.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	limitBody(w, r)
	if s.serveJSON(w, r) {
		return
	}
	c := &call{srv: s, ctx: r.Context(), requestID: newRequestID(), now: s.cfg.Now().UTC(), event: &audit.Event{}}
	c.sourceIP, _, _ = net.SplitHostPort(r.RemoteAddr)
	c.secure = r.TLS != nil
	result, qerr := s.handle(c, r)
	if s.cfg.AfterCall != nil {
		code := ""
		if qerr != nil {
			code = qerr.Code
		}
		s.cfg.AfterCall(c.action, code)
	}
	// In the log before the response: an answered request is never
	// missing from it (see audit.Log).
	s.record(c, r, result, qerr)
	// Go's server would write the machine's time; clients such as leash
	// revoke read the endpoint's from Date.
	w.Header().Set("Date", c.now.Format(http.TimeFormat))
	ns := namespaces[c.service]
	if ns == "" {
		ns = query.IAMNamespace
	}
	if qerr != nil {
		query.WriteError(w, ns, qerr, c.requestID)
	} else {
		query.WriteResult(w, ns, c.action, result, c.requestID)
	}
}

func (s *Server) handle(c *call, r *http.Request) (any, *query.Error) {
	switch s.faults.Next() {
	case faults.Throttle:
		return nil, query.Throttling("Rate exceeded")
	case faults.ServerError:
		return nil, query.ServiceFailure("The request processing has failed because of an unknown error, exception or failure.")
	}
	body, err := readBody(r)
	if err != nil {
		return nil, bodyError(err)
	}
	var signed *sigv4.Signed
	if isSigned(r) {
		var serr *sigv4.Error
		signed, serr = s.verifySignature(r, body, c.now)
		if serr != nil {
			// The record names the action refused; nothing else is
			// read from a request whose signature failed.
			if req, qerr := query.Parse(r, body); qerr == nil {
				c.action, c.service = req.Action, services[req.Version]
			}
			return nil, query.NewError(serr.Status, serr.Code, serr.Message)
		}
		c.service, c.region = signed.Service, signed.Region
	}
	req, qerr := query.Parse(r, body)
	if qerr != nil {
		return nil, qerr
	}
	c.q, c.action = req, req.Action
	if c.service == "" {
		c.service = services[req.Version]
	}
	op, ok := s.ops[c.service][req.Action]
	if !ok || services[req.Version] != c.service {
		return nil, query.InvalidAction(req.Action, req.Version)
	}
	if signed == nil && !op.unsigned {
		return nil, query.MissingAuthenticationToken("Request is missing Authentication Token")
	}
	// An unsigned operation authenticates with the token it carries; a
	// signature on it (checked above) names no caller.
	if signed != nil && !op.unsigned {
		c.accessKeyID = signed.AccessKeyID
	}
	return s.run(c, op)
}

// run authorizes and performs the operation in one transaction, so that
// what was authorized is what is changed.
func (s *Server) run(c *call, op operation) (any, *query.Error) {
	var result any
	if op.prepare != nil {
		if err := op.prepare(c); err != nil {
			return nil, apiError(err)
		}
	}
	// A signed request acts in the account that issued its key.
	st := s.store
	if c.accessKeyID != "" {
		st = s.storeForKey(c.accessKeyID)
	}
	c.recipient = st.Account().ID
	txn := st.Update
	if op.readOnly {
		txn = st.View
	}
	c.event.ReadOnly = op.readOnly
	err := txn(c.ctx, func(tx *store.Tx) error {
		c.tx = tx
		if c.accessKeyID != "" {
			if err := s.resolveCaller(c); err != nil {
				return err
			}
			if op.noPermission {
				c.authz().Decision = policy.Allowed.String()
			} else if err := s.authorize(c, op); err != nil {
				return err
			}
		}
		var err error
		result, err = op.run(c)
		return err
	})
	c.tx = nil
	if err == nil && c.then != nil {
		result, err = c.then()
	}
	if err != nil {
		return nil, apiError(err)
	}
	if c.accessKeyID != "" {
		// Last use is bookkeeping: a failure to record it fails nothing.
		_ = st.RecordAccessKeyUse(context.WithoutCancel(c.ctx), c.accessKeyID, store.LastUsed{Date: c.now, ServiceName: c.service, Region: c.region})
	}
	return result, nil
}

// authorize asks the engine whether the caller may perform the operation.
func (s *Server) authorize(c *call, op operation) error {
	t, err := op.target(c)
	if err != nil {
		return err
	}
	return s.authorizeAction(c, c.service+":"+c.action, t)
}

// authorizeAction asks the engine whether the caller may perform action on
// t. Besides the operation's own action, AssumeRole asks it for the
// sts:TagSession and sts:SetSourceIdentity its parameters need.
func (s *Server) authorizeAction(c *call, action string, t target) error {
	c.authz().AuthorizedResource = t.resource
	policies := c.policies
	if t.resourcePolicy != nil {
		var err error
		if policies, err = s.withResourcePolicy(c, t.resourcePolicy); err != nil {
			return err
		}
	}
	denial := authz.Authorize(policies, &authz.Request{
		Caller: &c.caller, Action: action, Resource: t.resource, ResourceAccount: t.resourceAccount,
		Region: c.region, SourceIP: c.sourceIP, Secure: c.secure, Now: c.now, Keys: t.keys,
	})
	if denial == nil {
		c.authz().Decision = policy.Allowed.String()
		return nil
	}
	c.authz().Decision = denial.Decision.String()
	return query.AccessDenied(denial.Message)
}

// apiError turns an operation's error into the Query protocol's.
func apiError(err error) *query.Error {
	var qerr *query.Error
	if errors.As(err, &qerr) {
		return qerr
	}
	var serr *store.Error
	if errors.As(err, &serr) {
		return storeError(serr)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return query.ServiceUnavailable("the request was cancelled")
	}
	return query.ServiceFailure("The request processing has failed because of an unknown error, exception or failure.")
}

// storeError maps the store's refusals to IAM's statuses; the codes and
// messages are already IAM's.
func storeError(e *store.Error) *query.Error {
	status := http.StatusBadRequest
	switch e.Code {
	case store.NoSuchEntity:
		status = http.StatusNotFound
	case store.EntityAlreadyExists, store.DeleteConflict:
		status = http.StatusConflict
	case store.LimitExceeded:
		status = http.StatusConflict
	case store.InvalidClientTokenID, store.ExpiredToken:
		status = http.StatusForbidden
	}
	return query.NewError(status, string(e.Code), e.Message)
}

func isSigned(r *http.Request) bool {
	return r.Header.Get("Authorization") != "" || r.URL.Query().Get("X-Amz-Signature") != ""
}

// lookupKey is the signature verifier's view of the store.
func (s *Server) lookupKey(id string) (sigv4.Secret, *sigv4.Error) {
	var cred store.Credential
	err := s.storeForKey(id).View(context.Background(), func(tx *store.Tx) error {
		var err error
		cred, err = tx.LookupCredential(id)
		return err
	})
	if err != nil {
		return sigv4.Secret{}, sigv4.UnknownAccessKey()
	}
	if cred.Status != store.Active || s.cfg.Now().Before(cred.NotBefore) {
		return sigv4.Secret{}, sigv4.UnknownAccessKey()
	}
	if !cred.Expiration.IsZero() && !s.cfg.Now().Before(cred.Expiration) {
		return sigv4.Secret{}, sigv4.ExpiredCredentials()
	}
	return sigv4.Secret{SecretAccessKey: cred.SecretAccessKey.Reveal(), SessionToken: cred.SessionToken.Reveal()}, nil
}

// record appends the request to the audit log; the log's failure is logged,
// never the client's. The record has every field CloudTrail marks
// "Optional: False" in its record contents for management events
// (https://docs.aws.amazon.com/awscloudtrail/latest/userguide/cloudtrail-event-reference-record-contents.html),
// and those of its optional ones that apply to an IAM or STS call.
func (s *Server) record(c *call, r *http.Request, result any, qerr *query.Error) {
	e := c.event
	e.EventVersion = "1.08"
	e.EventTime = c.now
	e.EventSource = c.service + ".amazonaws.com"
	e.EventName = c.action
	e.AWSRegion = c.region
	if e.AWSRegion == "" {
		// An unsigned request names no region; CloudTrail lists calls to
		// STS's global endpoint under us-east-1 (IAM User Guide, "Logging
		// IAM and AWS STS API calls with AWS CloudTrail").
		e.AWSRegion = "us-east-1"
	}
	e.SourceIPAddress = c.sourceIP
	e.UserAgent = r.UserAgent()
	e.RequestID = c.requestID
	e.EventID = newRequestID()
	e.EventType = "AwsApiCall"
	e.EventCategory = "Management"
	e.ManagementEvent = true
	e.RecipientAccount = c.recipient
	if e.RecipientAccount == "" {
		e.RecipientAccount = s.AccountID()
	}
	e.UserIdentity = c.identity()
	if e.RequestParameters == nil {
		e.RequestParameters = requestParameters(c.q)
	}
	// "The response element for actions that make changes (create,
	// update, or delete actions). If an action does not change state (for
	// example, a request to get or list objects), this element is
	// omitted": null for reads and for refused calls.
	if qerr == nil && !e.ReadOnly {
		e.ResponseElements = responseElements(result)
	}
	if qerr != nil {
		e.ErrorCode, e.ErrorMessage = qerr.Code, qerr.Message
	}
	if err := s.audit.Append(e); err != nil {
		s.cfg.Log.Warn("audit log", "err", err)
	}
}

// newRequestID is a random UUID, as AWS request IDs are.
func newRequestID() string { return query.NewRequestID() }

// call is one request on its way through the pipeline.
type call struct {
	srv       *Server
	ctx       context.Context
	requestID string
	now       time.Time
	service   string
	region    string
	action    string
	sourceIP  string
	secure    bool
	q         *query.Request
	tx        *store.Tx
	event     *audit.Event
	// recipient is the account whose state the request acted in.
	recipient string

	// The authenticated caller, when the request was signed.
	accessKeyID string
	caller      authz.Caller
	userName    string                     // the calling user, or the user of a GetSessionToken session
	session     *store.Session             // the caller's session, for temporary credentials
	issuer      *audit.SessionIssuer       // the role or user the session was issued for
	buildSet    func() (policy.Set, error) // reads the caller's policies
	policies    *policy.Policies

	// webIdentity is AssumeRoleWithWebIdentity's token, verified by its
	// prepare step before the transaction.
	webIdentity *webIdentity
	// then, when an operation sets it, finishes the operation in another
	// account's state once the caller's transaction has committed (a
	// cross-account AssumeRole's session), and gives the result: two
	// accounts' transactions are never nested, so never wait on each other.
	then func() (any, error)
	// heldPrincipals are the user and role ARNs a trust policy names in
	// the accounts leash local holds, with whether each names a user or
	// role that exists, read before the transaction (see trustPolicy).
	heldPrincipals map[string]bool
}

// authz is the record's account of the authorization, made on first use.
func (c *call) authz() *audit.AdditionalData {
	if c.event.AdditionalEventData == nil {
		c.event.AdditionalEventData = &audit.AdditionalData{}
	}
	return c.event.AdditionalEventData
}

// identity is the caller as CloudTrail names it.
func (c *call) identity() audit.Identity {
	id := audit.Identity{ARN: c.caller.ARN, AccountID: c.caller.Account, PrincipalID: c.caller.UserID, AccessKeyID: c.accessKeyID}
	switch {
	case c.webIdentity != nil:
		// As CloudTrail records AssumeRoleWithWebIdentity: the token's
		// subject at its issuer.
		w := c.webIdentity
		issuer := strings.TrimPrefix(strings.TrimPrefix(w.issuer, "https://"), "http://")
		id.Type, id.UserName, id.IdentityProvider = "WebIdentityUser", w.claims.Subject, issuer
		id.PrincipalID = issuer + ":" + strings.Join(w.claims.Audience, ",") + ":" + w.claims.Subject
	case c.caller.ARN == "":
	case c.session != nil && c.session.RoleName != "":
		id.Type = "AssumedRole"
	default:
		id.Type, id.UserName = "IAMUser", c.userName
	}
	if c.session != nil && c.issuer != nil && c.caller.ARN != "" {
		id.SessionContext = sessionContext(c.session, c.issuer)
	}
	return id
}

// param is a parameter's value, "" when absent.
func (c *call) param(name string) string {
	v, _ := c.q.String(name)
	return v
}

// required is a required parameter's value.
func (c *call) required(name string) (string, error) {
	v, err := c.q.Required(name)
	if err != nil {
		return "", err
	}
	return v, nil
}

// arn builds an IAM ARN in the server's account.
func (c *call) arn(resource string) string {
	return "arn:aws:iam::" + c.tx.Account().ID + ":" + resource
}

// pathName joins an IAM path and name as ARNs do.
func pathName(path, name string) string {
	if path == "" {
		path = "/"
	}
	return strings.TrimPrefix(path, "/") + name
}
