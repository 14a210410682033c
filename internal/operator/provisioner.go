// Package operator turns CredentialsRequests into credentials: it mints an
// IAM user per request, passes checked root credentials through, checks
// manually provided Secrets, or writes web-identity configuration for STS.
// The same Provisioner runs in the cluster (Reconciler) and over a folder of
// manifests (leash apply); only where Secrets are kept differs.
package operator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/internal/inputerr"
	"leash.dev/leash/internal/reqmode"
)

// Annotations a user sets on a CredentialsRequest.
const (
	// AnnotationMode overrides the cluster's mode for one request: Mint,
	// Passthrough, Manual, STS or Broker.
	AnnotationMode = reqmode.Annotation
	// AnnotationRotateAfter is the maximum age of a minted key, such as
	// 720h; "0" turns rotation off for the request.
	AnnotationRotateAfter = "leash.dev/rotate-after"
	// AnnotationRevoke is an RFC 3339 time: every credential of the
	// request's principal issued before it is retired at once (a minted
	// user's keys, a fresh one minted first) or refused (a role's
	// sessions). `leash revoke --request` sets it; removing it lifts
	// nothing.
	AnnotationRevoke = "leash.dev/revoke"
)

// Config is how the operator provisions, the same for every request unless
// a request's annotations say otherwise.
type Config struct {
	// Mode is the cluster's credentials mode.
	Mode leashv1.CredentialsMode
	// ClusterName prefixes minted users' names and is part of their path
	// and tags.
	ClusterName string
	// RotateAfter is the default maximum age of a minted key; 0 never
	// rotates.
	RotateAfter time.Duration
	// RotationGrace is how long a rotated-out key keeps working after its
	// successor is published, so that pods reading the old Secret finish.
	RotationGrace time.Duration
	// Boundary is the ARN of a managed policy set as every minted user's
	// permissions boundary; empty sets none.
	Boundary string
	// ProofTimeout bounds how long a new key may take to work (IAM's
	// propagation delay) before it is deleted and the mint retried.
	ProofTimeout time.Duration
	// Guardrails bound what any request may ask for (guardrails.go).
	Guardrails Guardrails
	// OIDCIssuer is the cluster's service-account issuer URL (the
	// kube-apiserver's --service-account-issuer): the roles leash makes in
	// STS mode trust its IAM OIDC provider. Empty refuses such requests.
	OIDCIssuer string
	// Audience is the token audience the made roles trust; empty is
	// sts.amazonaws.com.
	Audience string
	// BrokerPrincipal is the ARN of the IAM user or role leash's
	// credential broker runs as: the only principal the roles leash makes
	// in Broker mode trust. Empty refuses such requests.
	BrokerPrincipal string
	// AdminNamespaces are the namespaces whose requests may name a Secret
	// in another namespace and may be Passthrough ("*": every namespace, as
	// for leash apply, whose user writes every file). A request elsewhere
	// may target only its own namespace, so that leash never writes where
	// its author could not.
	AdminNamespaces []string
	// SecretNamespaces, when set, are the only namespaces leash may write
	// Secrets in (its RBAC grants no more); requests naming another are
	// refused before any IAM call.
	SecretNamespaces []string
	// ReservedSecrets are the operator's own Secrets, as NAMESPACE/NAME
	// (its root credentials, its webhook certificate): never a request's
	// target.
	ReservedSecrets []string
	// AccountChecks says how roles and keys of other accounts than the
	// root credentials' are checked (account.go).
	AccountChecks AccountChecks
}

// Validate names the setting that is wrong and how to fix it.
func (c *Config) Validate() error {
	switch c.Mode {
	case leashv1.ModeMint, leashv1.ModePassthrough, leashv1.ModeManual, leashv1.ModeSTS, leashv1.ModeBroker:
	default:
		return fmt.Errorf("mode %q: use Mint, Passthrough, Manual, STS or Broker", c.Mode)
	}
	if err := c.validateIssuer(); err != nil {
		return err
	}
	if err := validateBrokerPrincipal(c.BrokerPrincipal); err != nil {
		return err
	}
	if err := validateClusterName(c.ClusterName); err != nil {
		return err
	}
	if c.RotateAfter < 0 || c.RotationGrace < 0 {
		return errors.New("rotate-after and rotation grace must not be negative (e.g. 720h and 10m)")
	}
	if c.RotateAfter > 0 && c.RotateAfter < c.RotationGrace {
		return fmt.Errorf("--rotate-after %v (or the ConfigMap's rotateAfter) is shorter than --rotation-grace %v, so a key would be replaced before the key it replaced stopped working; give --rotate-after at least %v (or 0 to never rotate), or a shorter --rotation-grace",
			c.RotateAfter, c.RotationGrace, c.RotationGrace)
	}
	if c.ProofTimeout == 0 {
		c.ProofTimeout = 2 * time.Minute
	}
	if c.Boundary != "" && c.Guardrails.HasCeiling() {
		return fmt.Errorf("--permissions-boundary %s and a ceiling are both set, and a user has one boundary: the ceiling becomes every minted user's boundary (policy %s); give one of them, the ceiling to have requests checked against it too", c.Boundary, ceilingPolicyName(c.ClusterName))
	}
	if err := c.AccountChecks.validate(); err != nil {
		return err
	}
	return c.Guardrails.validate()
}

// Cluster is where Secrets and namespaces live: the API server, or a folder
// of manifests for leash apply.
type Cluster interface {
	NamespaceExists(ctx context.Context, name string) (bool, error)
	// Secret returns nil, nil when the Secret does not exist.
	Secret(ctx context.Context, namespace, name string) (*corev1.Secret, error)
	// WriteSecret creates s when prev is nil, else replaces prev, the
	// Secret as read and judged the request's, failing if it changed since.
	WriteSecret(ctx context.Context, s, prev *corev1.Secret) error
	// DeleteSecret deletes a Secret if it is still the one with uid; one
	// already gone is not an error.
	DeleteSecret(ctx context.Context, namespace, name string, uid types.UID) error
	// RequestsNaming lists the requests whose spec.secretRef names the
	// Secret, so that only the oldest writes it.
	RequestsNaming(ctx context.Context, namespace, name string) ([]leashv1.CredentialsRequest, error)
	// ServiceAccountToken is a token of the ServiceAccount for audience,
	// valid for expiry, to prove a made role before its Secret is written:
	// ErrNoTokenAPI when there is no way to get one, ErrTokenForbidden
	// when leash may not.
	ServiceAccountToken(ctx context.Context, namespace, name, audience string, expiry time.Duration) (string, error)
}

// Recorder receives Kubernetes Events: a Normal one per IAM change, and a
// Warning when a request turns to failing (client-go's record.EventRecorder
// is one).
type Recorder interface {
	Event(object runtime.Object, eventtype, reason, message string)
}

// Root is the administrator's credentials: the key leash mints with and,
// in passthrough mode, the key it hands out.
type Root struct {
	Key iamclient.AccessKey
	// Version changes whenever the credentials do (a Secret's
	// resourceVersion, a file's key ID).
	Version string
	// Source names where they came from, for messages.
	Source string
}

// RootSource reads the root credentials; ErrNoRoot when there are none.
type RootSource interface {
	Root(ctx context.Context) (Root, error)
}

// ErrNoRoot means no root credentials are configured or the Secret holding
// them is missing.
var ErrNoRoot = errors.New("no root credentials")

// IAMFactory builds an IAM client that signs with a key.
type IAMFactory func(key iamclient.AccessKey) *iamclient.Client

// Provisioner does the work for one request at a time; it is safe for
// concurrent use by several workers on different requests.
type Provisioner struct {
	cfg     Config
	root    RootSource
	newIAM  IAMFactory
	cluster Cluster
	events  Recorder
	now     func() time.Time

	mu      sync.Mutex
	clients map[string]*rootClient // by root key ID
	// identify is held while a new root key's identity is read, so that
	// workers starting together ask STS once.
	identify sync.Mutex
	// bound is the guardrails in force and what IAM holds of them (bound.go).
	bound boundState
}

// rootClient is an IAM client for a root key, with who it is.
type rootClient struct {
	iam      *iamclient.Client
	identity iamclient.Identity
	perms    *permissionCache
	// accounts holds sessions of other accounts' check roles.
	accounts accountSessions
}

// NewProvisioner checks cfg and returns a provisioner.
func NewProvisioner(cfg Config, root RootSource, newIAM IAMFactory, cluster Cluster, events Recorder) (*Provisioner, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	p := &Provisioner{cfg: cfg, root: root, newIAM: newIAM, cluster: cluster, events: events,
		now: time.Now, clients: map[string]*rootClient{}}
	p.bound.guard.Store(&cfg.Guardrails)
	return p, nil
}

// Failure is a condition the request's status must show as True.
type Failure struct {
	Type    leashv1.CredentialsRequestConditionType
	Reason  string
	Message string
}

func (f *Failure) Error() string { return f.Reason + ": " + f.Message }

// Outcome is what one sync did and found.
type Outcome struct {
	Mode leashv1.CredentialsMode
	// Principal is the ARN the credentials act as.
	Principal string
	// User and Policy are the minted user and its policy.
	User, Policy string
	// PolicyNote says how a policy too large for one managed policy was
	// stored, for the Ready message; empty otherwise.
	PolicyNote string
	// Provisioned is true when the Secret holds the credentials.
	Provisioned bool
	// Failure is the problem to report, nil when none.
	Failure *Failure
	// Granted lists the actions the credentials were checked or minted for.
	Granted []string
	// KeyCreated is when the published key was made (mint only).
	KeyCreated time.Time
	// RequeueAfter asks for the next sync (a rotation or a key's retirement).
	RequeueAfter time.Duration
	// Warnings are what the catalog finds doubtful in the request without
	// refusing it, each naming its field and the fix; nil when the request
	// was not checked (it failed before).
	Warnings []string
	// Checked is true when the request passed checkRequest, so that
	// Warnings is its verdict.
	Checked bool
	// Revocation is the leash.dev/revoke time this sync honoured anew, and
	// what it did; nil when it honoured none.
	Revocation *Revocation
	// Unchecked says what of provisioned credentials leash could not
	// check, and how to have it checked; empty when nothing was left out.
	Unchecked string
	// RoleTrust is the trust policy of the STS role the request names, as
	// IAM held it; empty when it was not read.
	RoleTrust string
}

// modeOf is the request's mode: its annotation, else the cluster's; Manual
// with a role ARN is STS (reqmode.Of, which admission asks too).
func (p *Provisioner) modeOf(cr *leashv1.CredentialsRequest, spec *leashv1.AWSProviderSpec) (leashv1.CredentialsMode, error) {
	return reqmode.Of(cr, spec, p.cfg.Mode)
}

// Sync brings the request's credentials in line with its spec. A returned
// error is transient (IAM or the API server failed) and worth a retry;
// problems the user must fix are in Outcome.Failure.
func (p *Provisioner) Sync(ctx context.Context, cr *leashv1.CredentialsRequest) (Outcome, error) {
	// A minted user the status records exists until it is retired: a sync
	// that stops before IAM still reports it.
	out := recordedUser(cr)
	spec, err := awsSpec(cr)
	if errors.Is(err, errNotAWS) {
		out.Mode = leashv1.ModeIgnored
		out.Failure = &Failure{Type: leashv1.Ignored, Reason: ReasonNotAWS, Message: notAWSMessage(cr)}
		return out, nil
	}
	if err != nil {
		out.Failure = inputFailure(err)
		return out, nil
	}
	mode, err := p.modeOf(cr, spec)
	if err != nil {
		out.Failure = inputFailure(err)
		return out, nil
	}
	out.Mode = mode
	warnings, err := p.checkRequest(cr, spec, mode)
	if f := asFailure(err); f != nil {
		out.Failure = f
		return out, p.boundAboveCeiling(ctx, cr, &out)
	}
	out.Warnings, out.Checked = warnings, true
	ref := cr.Spec.SecretRef
	if ref.Name == "" || ref.Namespace == "" {
		out.Failure = inputFailure(&inputerr.Error{Field: "spec.secretRef", Msg: "needs both namespace and name of the Secret to write"})
		return out, nil
	}
	if f := p.targetRefused(cr, mode); f != nil {
		out.Failure = f
		return out, nil
	}
	if f, err := p.secretConflict(ctx, cr); err != nil || f != nil {
		out.Failure = f
		return out, err
	}
	ok, err := p.cluster.NamespaceExists(ctx, ref.Namespace)
	if err != nil {
		return out, fmt.Errorf("read namespace %s: %w", ref.Namespace, err)
	}
	if !ok {
		out.Failure = &Failure{Type: leashv1.MissingTargetNamespace, Reason: ReasonNamespaceNotFound,
			Message: fmt.Sprintf("namespace %s of spec.secretRef does not exist; create it, and the Secret follows", ref.Namespace)}
		return out, nil
	}
	// Manual reads the administrator's Secret and Broker writes none.
	if mode != leashv1.ModeManual && mode != leashv1.ModeBroker {
		if _, err := p.writableSecret(ctx, cr); err != nil {
			var f *Failure
			if errors.As(err, &f) {
				out.Failure = f
				return out, nil
			}
			return out, err
		}
	}
	var syncErr error
	switch mode {
	case leashv1.ModeMint:
		syncErr = p.mint(ctx, cr, spec, &out)
	case leashv1.ModePassthrough:
		syncErr = p.passthrough(ctx, cr, spec, &out)
	case leashv1.ModeManual:
		syncErr = p.manual(ctx, cr, spec, &out)
	case leashv1.ModeSTS:
		if spec.STSIAMRoleARN == "" {
			syncErr = p.stsRole(ctx, cr, spec, &out)
		} else {
			syncErr = p.sts(ctx, cr, spec, &out)
		}
	case leashv1.ModeBroker:
		syncErr = p.brokerRole(ctx, cr, spec, &out)
	}
	var f *Failure
	if mode != leashv1.ModeMint && out.User != "" && (syncErr == nil || errors.As(syncErr, &f)) {
		if err := p.retireMinted(ctx, cr, &out); err != nil && syncErr == nil {
			syncErr = err
		}
	}
	if syncErr == nil && !makesRole(spec, mode) && p.madeRole(cr, nil, "") {
		syncErr = p.retireMadeRole(ctx, cr, mode)
	}
	// A role's sessions are denied even when the role lacks a requested
	// permission: the revocation cannot wait for that fix.
	if syncErr == nil || errors.As(syncErr, &f) {
		if err := p.honourRevoke(ctx, cr, spec, mode, &out); err != nil && syncErr == nil {
			syncErr = err
		}
	}
	switch {
	case errors.As(syncErr, &f):
		out.Failure = f
		return out, nil
	case syncErr != nil:
		var in *inputerr.Error
		if errors.As(syncErr, &in) {
			out.Failure = inputFailure(in)
			return out, nil
		}
		out.Failure = &Failure{Type: leashv1.CredentialsProvisionFailure, Reason: ReasonCloudError, Message: syncErr.Error() + "; retrying with backoff"}
		return out, syncErr
	}
	return out, nil
}

// asFailure is the failure a check's error reports: its own, or
// InvalidRequest for bad input; nil for no error.
func asFailure(err error) *Failure {
	var f *Failure
	if errors.As(err, &f) {
		return f
	}
	if err != nil {
		return inputFailure(err)
	}
	return nil
}

// notAWSMessage says why a request is ignored, and that nothing is wrong
// unless it was meant for AWS.
func notAWSMessage(cr *leashv1.CredentialsRequest) string {
	var head struct {
		Kind string `json:"kind"`
	}
	_ = json.Unmarshal(cr.Spec.ProviderSpec.Raw, &head)
	if head.Kind == "" {
		return "spec.providerSpec has no kind: leash manages requests of kind AWSProviderSpec only and leaves this one alone; set kind: AWSProviderSpec if it is meant for AWS"
	}
	return fmt.Sprintf("spec.providerSpec is a %s, for another cloud: leash manages AWS requests only and leaves this one to that cloud's credentials operator", head.Kind)
}

func inputFailure(err error) *Failure {
	return &Failure{Type: leashv1.CredentialsProvisionFailure, Reason: ReasonInvalidRequest, Message: err.Error()}
}

// rootClient returns the IAM client for the current root credentials.
func (p *Provisioner) rootClient(ctx context.Context) (*rootClient, Root, error) {
	root, err := p.root.Root(ctx)
	if errors.Is(err, ErrNoRoot) {
		return nil, root, &Failure{Type: leashv1.CredentialsProvisionFailure, Reason: ReasonRootCredentialsMissing, Message: err.Error()}
	}
	if err != nil {
		return nil, root, err
	}
	p.identify.Lock()
	defer p.identify.Unlock()
	p.mu.Lock()
	rc := p.clients[root.Key.ID]
	p.mu.Unlock()
	if rc != nil {
		return rc, root, nil
	}
	c := p.newIAM(root.Key)
	id, err := c.CallerIdentity(ctx)
	if iamclient.IsInvalidKey(err) {
		return nil, root, &Failure{Type: leashv1.InsufficientCloudCredentials, Reason: ReasonRootCredentialsInvalid,
			Message: fmt.Sprintf("the root credentials in %s are not a valid AWS key; replace them", root.Source)}
	}
	if err != nil {
		return nil, root, err
	}
	rc = &rootClient{iam: c, identity: id, perms: newPermissionCache(time.Minute, p.now)}
	p.mu.Lock()
	p.clients = map[string]*rootClient{root.Key.ID: rc} // forget rotated-out keys
	p.mu.Unlock()
	return rc, root, nil
}

// warnIfTurnedFailing records a Warning Event when the request's status
// turned a failure condition True since before: the Event a person watching
// the cluster's warnings sees, once per turn.
func (p *Provisioner) warnIfTurnedFailing(cr *leashv1.CredentialsRequest, before *leashv1.CredentialsRequestStatus) {
	if c := turnedFailing(before, &cr.Status); c != nil && p.events != nil {
		p.events.Event(cr, corev1.EventTypeWarning, c.Reason, c.Message)
	}
	if c := findCondition(&cr.Status, leashv1.PolicyWarnings); c != nil && c.Status == corev1.ConditionTrue && p.events != nil {
		if was := findCondition(before, leashv1.PolicyWarnings); was == nil || was.Status != corev1.ConditionTrue || was.Message != c.Message {
			p.events.Event(cr, corev1.EventTypeWarning, "PolicyWarnings", c.Message)
		}
	}
}

// event records an IAM change on the request.
func (p *Provisioner) event(cr *leashv1.CredentialsRequest, reason, format string, args ...any) {
	if p.events != nil {
		p.events.Event(cr, corev1.EventTypeNormal, reason, fmt.Sprintf(format, args...))
	}
}
