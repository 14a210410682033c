package operator

import (
	"bytes"
	"crypto/sha256"
	"encoding/base32"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/inputerr"
	"leash.dev/leash/internal/reqmode"
	"leash.dev/leash/policy"
)

// IAM's size limits, in characters without whitespace: a user's inline
// policies together, and one managed policy. A minted policy is inline when
// it fits, else managed, split across several when one cannot hold it
// (planPolicy).
const (
	inlinePolicyLimit  = 2048
	managedPolicyLimit = 6144
)

// errNotAWS marks a request whose providerSpec is for another cloud.
var errNotAWS = reqmode.ErrNotAWS

// awsSpec decodes spec.providerSpec; errNotAWS when it is another cloud's.
func awsSpec(cr *leashv1.CredentialsRequest) (*leashv1.AWSProviderSpec, error) {
	return reqmode.Spec(cr)
}

// policyStatement is a statement leash adds to the request's own (the
// minted user's right to read itself).
type policyStatement = leashv1.StatementEntry

// requestedPolicy is the policy the request's statements make, checked by
// the engine: the statements alone (for passthrough and manual checks) and
// with extra statements appended (the minted user's policy; planPolicy lays
// it out within IAM's quotas). The text is the one IAM is sent, and its size
// the one IAM's quotas measure.
func requestedPolicy(spec *leashv1.AWSProviderSpec, extra ...policyStatement) (string, *policy.Document, error) {
	if len(spec.StatementEntries) == 0 {
		return "", nil, &inputerr.Error{Field: "spec.providerSpec.statementEntries",
			Msg: "is empty; list the IAM statements (effect, action, resource) the credentials need"}
	}
	entries := append(slices.Clone(spec.StatementEntries), extra...)
	statements := make([]any, len(entries))
	for i, e := range entries {
		s, err := entryJSON(e)
		if err != nil {
			return "", nil, &inputerr.Error{Field: "spec.providerSpec.statementEntries", Msg: err.Error()}
		}
		statements[i] = s
	}
	doc, err := policy.FromJSON(map[string]any{"Version": policy.Version2012, "Statement": statements}, policy.Identity)
	if err != nil {
		return "", nil, entryError(err)
	}
	data, err := json.Marshal(doc)
	if err != nil {
		return "", nil, &inputerr.Error{Field: "spec.providerSpec.statementEntries", Msg: err.Error()}
	}
	parsed, err := policy.Parse(data, policy.Identity)
	if err != nil {
		return "", nil, entryError(err)
	}
	return string(data), parsed, nil
}

// entryJSON is an entry as decoded JSON in IAM's names, for policy.FromJSON,
// so that a bad entry gets the engine's message for a bad statement. The
// condition goes through encoding/json, which reads numbers as written and
// accepts any Go value a request built in code may hold.
func entryJSON(e leashv1.StatementEntry) (map[string]any, error) {
	var action any
	if e.Action != nil {
		list := make([]any, len(e.Action))
		for i, a := range e.Action {
			list[i] = a
		}
		action = list
	}
	s := map[string]any{"Effect": e.Effect, "Action": action, "Resource": e.Resource}
	if len(e.PolicyCondition) == 0 {
		return s, nil
	}
	text, err := json.Marshal(e.PolicyCondition)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	var cond any
	if err := dec.Decode(&cond); err != nil {
		return nil, err
	}
	s["Condition"] = cond
	return s, nil
}

// entryFields are the request's names of the statement elements it writes.
var entryFields = map[string]string{"Effect": "effect", "Action": "action", "Resource": "resource", "Condition": "policyCondition"}

// entriesField is the request's field the policy's statements come from.
const entriesField = "spec.providerSpec.statementEntries"

// entryPath turns a place in the policy the operator builds from the
// request (Statement[2].Action[0]) into the request's field
// (spec.providerSpec.statementEntries[2].action[0]): statement i is entry i,
// as leash's own statements come after the entries. What follows the
// element (an action's index, a condition's operator and key) keeps the
// engine's spelling.
func entryPath(path string) string {
	rest, ok := strings.CutPrefix(path, "Statement[")
	if !ok {
		return entriesField
	}
	index, rest, _ := strings.Cut(rest, "]")
	field := entriesField + "[" + index + "]"
	rest = strings.TrimPrefix(rest, ".")
	if rest == "" {
		return field
	}
	elem, inner := rest, ""
	if k := strings.IndexAny(rest, ".["); k >= 0 {
		elem, inner = rest[:k], rest[k:]
	}
	if name, ok := entryFields[elem]; ok {
		elem = name
	}
	return field + "." + elem + inner
}

// entryError turns the engine's place of an error (statement 2, element
// Effect) into the request's field (spec.providerSpec.statementEntries[2].effect).
func entryError(err error) error {
	var pe *policy.ParseError
	if !errors.As(err, &pe) {
		return &inputerr.Error{Field: entriesField, Msg: err.Error()}
	}
	if pe.Statement < 0 {
		return &inputerr.Error{Field: entriesField, Msg: pe.Error()}
	}
	path := pe.Path
	if !strings.HasPrefix(path, "Statement[") {
		path = fmt.Sprintf("Statement[%d]", pe.Statement)
		if pe.Field != "" {
			path += "." + pe.Field
		}
	}
	return &inputerr.Error{Field: entryPath(path), Msg: pe.Msg}
}

// userName is the IAM user minted for a request: the cluster name and the
// request's namespace and name, cut to fit IAM's 64 characters, and a hash
// of the request's UID, so that the name is unique and the same after a
// crash (a retried CreateUser finds the user it made).
func userName(cluster, namespace, name, uid string) string {
	suffix := "-" + shortHash(uid)
	if len(cluster) > 20 {
		cluster = cluster[:20]
	}
	base := cluster + "-" + namespace + "-" + name
	if max := 64 - len(suffix); len(base) > max {
		base = base[:max]
	}
	return strings.TrimRight(base, "-.") + suffix
}

func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(sum[:5]))
}

// policyName is the minted user's inline policy.
func policyName(user string) string { return user + "-policy" }

// userPath is the IAM path of every user minted for a cluster, so that the
// sweep lists them with one call.
func userPath(cluster string) string { return "/leash/" + cluster + "/" }

var clusterNamePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$`)

// validateClusterName checks the cluster name fits IAM names, paths and tags.
func validateClusterName(name string) error {
	if !clusterNamePattern.MatchString(name) {
		return fmt.Errorf("cluster name %q: use 1 to 63 letters, digits, '-', '_' or '.', starting with a letter or digit (e.g. --cluster-name prod-eu1)", name)
	}
	return nil
}

// RequestedPolicy is the policy a request's statementEntries make, parsed
// and validated, for reviews of requests (leash check, diff, union).
func RequestedPolicy(cr *leashv1.CredentialsRequest) (*policy.Document, error) {
	spec, err := awsSpec(cr)
	if err != nil {
		return nil, err
	}
	_, doc, err := requestedPolicy(spec)
	return doc, err
}
