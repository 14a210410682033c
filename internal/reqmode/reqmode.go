// Package reqmode reads a CredentialsRequest as leash provisions it: its
// AWS provider spec and its mode. The operator and admission both ask, and
// must answer alike (admission mounts the token a request's mode needs), so
// the decision lives here, below both.
package reqmode

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/inputerr"
)

// Annotation overrides the cluster's mode for one request: Mint,
// Passthrough, Manual, STS or Broker.
const Annotation = "leash.dev/mode"

// ErrNotAWS marks a request whose providerSpec is for another cloud.
var ErrNotAWS = errors.New("not an AWS request")

// Spec decodes spec.providerSpec; ErrNotAWS when it is another cloud's.
func Spec(cr *leashv1.CredentialsRequest) (*leashv1.AWSProviderSpec, error) {
	raw := cr.Spec.ProviderSpec
	if raw == nil || len(raw.Raw) == 0 {
		return nil, &inputerr.Error{Field: "spec.providerSpec", Msg: "is missing; give kind AWSProviderSpec with statementEntries"}
	}
	var head struct {
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal(raw.Raw, &head); err != nil {
		return nil, &inputerr.Error{Field: "spec.providerSpec", Msg: "is not a JSON object: " + err.Error()}
	}
	if head.Kind != "AWSProviderSpec" {
		return nil, ErrNotAWS
	}
	var spec leashv1.AWSProviderSpec
	dec := json.NewDecoder(strings.NewReader(string(raw.Raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&spec); err != nil {
		return nil, &inputerr.Error{Field: "spec.providerSpec", Msg: "is not a valid AWSProviderSpec: " + err.Error()}
	}
	return &spec, nil
}

// Of is the request's mode: its annotation, else the cluster's; Manual
// with a role ARN is STS.
func Of(cr *leashv1.CredentialsRequest, spec *leashv1.AWSProviderSpec, cluster leashv1.CredentialsMode) (leashv1.CredentialsMode, error) {
	mode := cluster
	if m, ok := cr.Annotations[Annotation]; ok {
		switch leashv1.CredentialsMode(m) {
		case leashv1.ModeMint, leashv1.ModePassthrough, leashv1.ModeManual, leashv1.ModeSTS, leashv1.ModeBroker:
			mode = leashv1.CredentialsMode(m)
		default:
			return "", &inputerr.Error{Field: "metadata.annotations[" + Annotation + "]", Msg: fmt.Sprintf("%q is not a mode; use Mint, Passthrough, Manual, STS or Broker", m)}
		}
	}
	if mode == leashv1.ModeManual && spec.STSIAMRoleARN != "" {
		return leashv1.ModeSTS, nil
	}
	return mode, nil
}
