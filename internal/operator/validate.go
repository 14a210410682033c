package operator

import (
	"fmt"
	"regexp"
	"strings"

	"leash.dev/leash/analyze"
	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/inputerr"
	"leash.dev/leash/policy"
)

// checkRequest refuses, before any IAM call and before any Secret is
// written, a request that cannot mean what its author meant: a manifest
// left a template, a field the mode ignores, a rotation shorter than its
// grace, a policy that allows nothing, or names AWS does not know. What is
// doubtful but harmless comes back as warnings, for the PolicyWarnings
// condition; the request is still provisioned.
func (p *Provisioner) checkRequest(cr *leashv1.CredentialsRequest, spec *leashv1.AWSProviderSpec, mode leashv1.CredentialsMode) ([]string, error) {
	if err := unrendered(cr, spec); err != nil {
		return nil, err
	}
	if mode == leashv1.ModeMint {
		if spec.STSIAMRoleARN != "" {
			return nil, &inputerr.Error{Field: "spec.providerSpec.stsIAMRoleARN",
				Msg: fmt.Sprintf("is honoured in Manual mode only, and this request is minted (Mint mode); to use role %s, annotate the request %s: Manual, else remove stsIAMRoleARN",
					spec.STSIAMRoleARN, AnnotationMode)}
		}
		if err := p.checkRotation(cr); err != nil {
			return nil, err
		}
	}
	if mode == leashv1.ModeSTS && spec.STSIAMRoleARN == "" {
		if err := checkRoleRequest(cr); err != nil {
			return nil, err
		}
	}
	if mode == leashv1.ModeSTS && spec.STSIAMRoleARN != "" {
		if err := checkRoleARN(spec); err != nil {
			return nil, err
		}
	}
	if mode == leashv1.ModeBroker {
		if err := checkBrokerRequest(cr, spec); err != nil {
			return nil, err
		}
	}
	_, doc, err := requestedPolicy(spec)
	if err != nil {
		return nil, err
	}
	if !allowsSomething(doc) {
		return nil, &Failure{Type: leashv1.CredentialsProvisionFailure, Reason: ReasonNothingAllowed,
			Message: entriesField + ": every entry is a Deny, so the credentials would be allowed nothing (IAM denies what no policy allows); add an Allow entry for what the workload needs"}
	}
	warnings, err := catalogFindings(doc)
	if err != nil {
		return nil, err
	}
	if err := p.guardrails().check(cr, doc); err != nil {
		return nil, err
	}
	return warnings, nil
}

// checkRotation refuses a request's rotate-after shorter than the rotation
// grace: a key would be rotated out before the key it replaced stopped
// working, so the grace the operator promises would be cut short.
func (p *Provisioner) checkRotation(cr *leashv1.CredentialsRequest) error {
	if _, ok := cr.Annotations[AnnotationRotateAfter]; !ok {
		return nil // the operator's own setting, checked at start
	}
	d, err := p.rotateAfter(cr)
	if err != nil {
		return err
	}
	if d > 0 && d < p.cfg.RotationGrace {
		return &inputerr.Error{Field: "metadata.annotations[" + AnnotationRotateAfter + "]",
			Msg: fmt.Sprintf("%v is shorter than the operator's rotation grace of %v, so a key would be replaced before the one it replaced stopped working; use at least %v, or 0 to never rotate",
				d, p.cfg.RotationGrace, p.cfg.RotationGrace)}
	}
	return nil
}

// allowsSomething reports whether the policy has an Allow statement.
func allowsSomething(doc *policy.Document) bool {
	for _, st := range doc.Statements {
		if st.Effect == policy.Allow {
			return true
		}
	}
	return false
}

// placeholder is a template variable such as ${NAMESPACE} or {{ .Values.ns }}:
// IAM's policy variables always hold a colon (${aws:username}) or are one
// of ${*}, ${?}, ${$}, so a ${NAME} without one was left for a templating
// step that did not run.
var placeholder = regexp.MustCompile(`\$\{[A-Za-z_][A-Za-z0-9_]*\}|\{\{[^}]*\}\}`)

// unrendered refuses a request that still holds a template's placeholders
// in the fields leash acts on, before they are taken for names (a namespace
// called ${NAMESPACE} to create, an ARN to grant).
func unrendered(cr *leashv1.CredentialsRequest, spec *leashv1.AWSProviderSpec) error {
	// field is built only for the value that holds one, as most hold none.
	check := func(value string, field func() string) error {
		if !strings.Contains(value, "${") && !strings.Contains(value, "{{") {
			return nil
		}
		m := placeholder.FindString(value)
		if m == "" {
			return nil
		}
		return &Failure{Type: leashv1.CredentialsProvisionFailure, Reason: ReasonUnrenderedTemplate,
			Message: fmt.Sprintf("%s: %q holds %s: the manifest is a template; replace %s with its value (render it with the tool it was written for, e.g. envsubst or helm template) and apply it again",
				field(), value, m, m)}
	}
	named := func(name string) func() string { return func() string { return name } }
	if err := check(cr.Spec.SecretRef.Namespace, named("spec.secretRef.namespace")); err != nil {
		return err
	}
	if err := check(cr.Spec.SecretRef.Name, named("spec.secretRef.name")); err != nil {
		return err
	}
	if err := check(spec.STSIAMRoleARN, named("spec.providerSpec.stsIAMRoleARN")); err != nil {
		return err
	}
	for i, e := range spec.StatementEntries {
		for j, a := range e.Action {
			if err := check(a, func() string { return fmt.Sprintf("%s[%d].action[%d]", entriesField, i, j) }); err != nil {
				return err
			}
		}
		if err := check(e.Resource, func() string { return fmt.Sprintf("%s[%d].resource", entriesField, i) }); err != nil {
			return err
		}
		for op, keys := range e.PolicyCondition {
			for key, v := range keys {
				if err := check(fmt.Sprint(v), func() string { return fmt.Sprintf("%s[%d].policyCondition.%s.%s", entriesField, i, op, key) }); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// refusedFindings are the catalog findings that refuse a request: names AWS
// does not know and resources that are not ARNs, which grant nothing and
// are most often typos. The others say the policy does less than it
// reads, and are warnings.
var refusedFindings = map[string]bool{
	"LEASH-VAL-001": true, // unknown service
	"LEASH-VAL-002": true, // unknown action, or a pattern matching none
	"LEASH-VAL-003": true, // an ARN no action of the statement accepts
	"LEASH-VAL-005": true, // not an ARN
}

// catalogFindings checks the request's policy against AWS's catalog with
// analyze.Validate: the refused findings are one error naming each entry's
// field and the fix, the others warnings.
func catalogFindings(doc *policy.Document) ([]string, error) {
	var refused, warnings []string
	for _, f := range analyze.Validate(doc, "", nil) {
		text := entryPath(f.Path) + ": " + f.Message + "; " + f.Fix
		if refusedFindings[f.ID] {
			refused = append(refused, text)
		} else {
			warnings = append(warnings, text)
		}
	}
	if len(refused) > 0 {
		return nil, &Failure{Type: leashv1.CredentialsProvisionFailure, Reason: ReasonInvalidRequest,
			Message: firstOf(refused) + " (checked before any IAM call)"}
	}
	return warnings, nil
}

// shownFindings is how many findings a message spells out; a status
// condition and an Event stay readable, and a request with one typo
// repeated a hundred times does not fill them.
const shownFindings = 5

// firstOf joins the first findings and counts the rest.
func firstOf(findings []string) string {
	if len(findings) <= shownFindings {
		return strings.Join(findings, "; ")
	}
	return fmt.Sprintf("%s; and %d more", strings.Join(findings[:shownFindings], "; "), len(findings)-shownFindings)
}
