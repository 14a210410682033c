package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	"leash.dev/leash/analyze"
	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/atomicfile"
	"leash.dev/leash/internal/cloudtrail"
	"leash.dev/leash/internal/inputerr"
	"leash.dev/leash/internal/operator"
	"leash.dev/leash/internal/reqmode"
	"leash.dev/leash/internal/simulate"
	"leash.dev/leash/internal/termsafe"
	"leash.dev/leash/internal/usage"
	"leash.dev/leash/localaws/audit"
	"leash.dev/leash/policy"
)

// requestAudit is leash audit --request's flags: where the request is,
// and what to print of its principal's use.
type requestAudit struct {
	ref, dir, kubeconfig, clusterName, mode, account string
	propose, keepResources                           bool
	proof                                            string
}

// checkRequestFlags refuses the selection flags --request replaces.
func checkRequestFlags(o auditOptions) error {
	for _, f := range []struct {
		flag string
		set  bool
	}{{"--principal", o.principal != ""}, {"--pod", o.pod != ""}, {"--policy", o.policy}, {"--denied", o.denied}, {"--issued-before", o.issuedBefore != ""}} {
		if f.set {
			return &inputerr.Error{Source: "--request", Msg: fmt.Sprintf("selects the request's principal and its allowed calls itself: drop %s", f.flag)}
		}
	}
	r := o.request
	switch {
	case r.account != "" && !accountID.MatchString(r.account):
		return &inputerr.Error{Source: "--account", Msg: fmt.Sprintf("%q is not an AWS account ID: give its 12 digits (e.g. --account 111122223333)", r.account)}
	case r.dir != "" && r.kubeconfig != "":
		return &inputerr.Error{Source: "--request", Msg: "-f and --kubeconfig both say where the request is: give -f DIR for a folder leash apply provisioned, or --kubeconfig for a cluster"}
	case (r.keepResources || r.proof != "") && !r.propose:
		return &inputerr.Error{Source: "--request", Msg: "--keep-resources and --proof shape the proposal: add --propose"}
	case r.propose && o.output != "table":
		return &inputerr.Error{Source: "--propose", Msg: "prints the proposed request as a YAML manifest; --output formats the report: drop --output"}
	case o.output != "table" && o.output != "json":
		return &inputerr.Error{Source: "--output", Msg: fmt.Sprintf("%q: use table, or json for the report as JSON", o.output)}
	}
	return nil
}

var accountID = regexp.MustCompile(`^[0-9]{12}$`)

// auditedRequest is the request and whose calls are its use.
type auditedRequest struct {
	cr      *leashv1.CredentialsRequest
	entries []leashv1.StatementEntry
	// arn is the principal's ARN when known (a cluster's status.principal,
	// a role ARN the request names); else name and kind say whose calls to
	// take, and the trail gives the ARN.
	arn, name, kind string
}

// findAuditedRequest reads the request from the folder or the cluster.
func findAuditedRequest(ctx context.Context, r requestAudit) (*auditedRequest, error) {
	ns, name, ok := strings.Cut(r.ref, "/")
	if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
		return nil, &inputerr.Error{Source: "--request", Msg: fmt.Sprintf("%q: give NAMESPACE/NAME (e.g. kube-system/aws-cloud-controller-manager)", r.ref)}
	}
	var cr *leashv1.CredentialsRequest
	var err error
	if r.dir != "" {
		cr, err = folderRequest(r.dir, ns, name)
	} else {
		cr, err = clusterRequest(ctx, r.kubeconfig, ns, name)
	}
	if err != nil {
		return nil, err
	}
	spec, err := reqmode.Spec(cr)
	if errors.Is(err, reqmode.ErrNotAWS) {
		return nil, &inputerr.Error{Source: "--request " + r.ref, Msg: "is for another cloud than AWS: leash reads AWS trails only"}
	}
	if err != nil {
		return nil, err
	}
	a := &auditedRequest{cr: cr, entries: spec.StatementEntries}
	if r.dir == "" {
		return a, a.fromStatus()
	}
	mode, principal, err := operator.FolderPrincipal(cr, r.clusterName, leashv1.CredentialsMode(r.mode))
	if err != nil {
		return nil, &inputerr.Error{Source: "--request " + r.ref, Msg: err.Error()}
	}
	switch {
	case mode == leashv1.ModeMint:
		a.kind, a.name = "user", principal
	case (mode == leashv1.ModeSTS || mode == leashv1.ModeBroker) && strings.HasPrefix(principal, "arn:"):
		a.arn = principal
	case mode == leashv1.ModeSTS || mode == leashv1.ModeBroker:
		a.kind, a.name = "role", principal
	default:
		return nil, &inputerr.Error{Source: "--request " + r.ref, Msg: fmt.Sprintf("is %s mode: its credentials are not its own, so their calls are not its use alone; audit their principal with --principal ARN --policy", mode)}
	}
	return a, nil
}

// fromStatus takes the principal the operator recorded.
func (a *auditedRequest) fromStatus() error {
	ref := a.cr.Namespace + "/" + a.cr.Name
	switch {
	case a.cr.Status.Mode == leashv1.ModePassthrough:
		return &inputerr.Error{Source: "--request " + ref, Msg: "passes through the operator's root credentials, which every Passthrough request and the operator share: their calls are not this request's alone; audit them with --principal ARN --policy"}
	case a.cr.Status.Principal == "":
		return &inputerr.Error{Source: "--request " + ref, Msg: fmt.Sprintf("has no principal in its status (status.principal): the operator has not provisioned it yet; see kubectl describe credentialsrequest -n %s %s", a.cr.Namespace, a.cr.Name)}
	}
	a.arn = a.cr.Status.Principal
	return nil
}

func folderRequest(dir, ns, name string) (*leashv1.CredentialsRequest, error) {
	requests, err := operator.ReadRequests(dir)
	if err != nil {
		return nil, err
	}
	for _, cr := range requests {
		if cr.Namespace == ns && cr.Name == name {
			return cr, nil
		}
	}
	return nil, &inputerr.Error{Source: "--request", Msg: fmt.Sprintf("no CredentialsRequest %s/%s in %s (a request without a namespace is in default)", ns, name, dir)}
}

func clusterRequest(ctx context.Context, kubeconfig, ns, name string) (*leashv1.CredentialsRequest, error) {
	kube, err := requestClient(kubeconfig)
	if err != nil {
		return nil, err
	}
	cr := &leashv1.CredentialsRequest{}
	if err := kube.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, cr); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, &inputerr.Error{Source: "--request", Msg: fmt.Sprintf("the cluster has no CredentialsRequest %s/%s; list them with kubectl get credentialsrequests -A", ns, name)}
		}
		return nil, fmt.Errorf("read CredentialsRequest %s/%s: %w", ns, name, err)
	}
	return cr, nil
}

// callerOf is the ARN of the request's principal that made the call, ""
// when another principal made it.
func (a *auditedRequest) callerOf(id *audit.Identity) string {
	if a.arn != "" {
		if audit.Selects(a.arn, id) {
			return a.arn
		}
		return ""
	}
	if a.kind == "user" {
		if id.Type == "IAMUser" && id.UserName == a.name {
			return id.ARN
		}
		return ""
	}
	if sc := id.SessionContext; sc != nil && sc.SessionIssuer != nil && sc.SessionIssuer.Type == "Role" && sc.SessionIssuer.UserName == a.name {
		return sc.SessionIssuer.ARN
	}
	return ""
}

// runRequestAudit reads the trail once, keeping the calls of the request's
// principal (by account, when only its name is known), and prints the
// report or the proposal.
func runRequestAudit(ctx context.Context, o auditOptions, f audit.Filter, src cloudtrail.Source, stdout, stderr io.Writer) error {
	a, err := findAuditedRequest(ctx, o.request)
	if err != nil {
		return err
	}
	builders := map[string]*cloudtrail.PolicyBuilder{}
	if err := cloudtrail.Collect(ctx, src, f, func(e *audit.Event) error {
		arn := a.callerOf(&e.UserIdentity)
		if arn == "" || (o.request.account != "" && e.UserIdentity.AccountID != o.request.account && !strings.Contains(arn, ":"+o.request.account+":")) {
			return nil
		}
		if builders[arn] == nil {
			builders[arn] = cloudtrail.NewPolicyBuilder()
		}
		builders[arn].Add(e)
		return nil
	}); err != nil {
		return err
	}
	principal, b, err := a.pick(builders)
	if err != nil {
		return err
	}
	if b.Events() == 0 {
		hint := "is the window (--since, --until) the one it ran in, and the trail its account's?"
		if o.request.dir != "" {
			hint = "was the request provisioned with this --mode and --cluster-name (leash apply's), " + hint
		}
		fmt.Fprintf(stderr, "leash audit: the trail holds no call of %s: %s\n", termsafe.Escape(principal), hint)
	}
	doc, err := operator.RequestedPolicy(a.cr)
	if err != nil {
		return err
	}
	report, err := usage.Build(a.cr.Namespace+"/"+a.cr.Name, principal, a.entries, doc, b.Uses(), reportNotes(b.Notes()))
	if err != nil {
		return err
	}
	report.Since, report.Until = f.Since, f.Until
	if !o.request.propose {
		if o.output == "json" {
			return writeJSON(stdout, report)
		}
		return usage.WriteText(stdout, report)
	}
	return writeProposal(o.request, a, report, doc, stdout, stderr)
}

// reportNotes are the notes a use report keeps: the calls left out. A
// use whose record does not tell its resource is no note here, since a
// proposal keeps the statement's resource for it.
func reportNotes(notes []cloudtrail.Note) []cloudtrail.Note {
	var out []cloudtrail.Note
	for _, n := range notes {
		if n.Kind != cloudtrail.NoteAnyResource && n.Kind != cloudtrail.NoteTooLarge {
			out = append(out, n)
		}
	}
	return out
}

// pick is the principal whose calls were read: the one ARN the trail
// shows for a principal known by name only (a name may be in several
// accounts' trails), or the known ARN.
func (a *auditedRequest) pick(builders map[string]*cloudtrail.PolicyBuilder) (string, *cloudtrail.PolicyBuilder, error) {
	if a.arn != "" {
		if b := builders[a.arn]; b != nil {
			return a.arn, b, nil
		}
		return a.arn, cloudtrail.NewPolicyBuilder(), nil
	}
	arns := make([]string, 0, len(builders))
	for arn := range builders {
		arns = append(arns, arn)
	}
	slices.Sort(arns)
	switch len(arns) {
	case 0:
		return a.kind + " " + a.name, cloudtrail.NewPolicyBuilder(), nil
	case 1:
		return arns[0], builders[arns[0]], nil
	}
	return "", nil, &inputerr.Error{Source: "--request " + a.cr.Namespace + "/" + a.cr.Name,
		Msg: fmt.Sprintf("the trail has calls of a %s named %s in several accounts (%s): give the one leash apply provisioned with --account ID", a.kind, a.name, termsafe.Escape(strings.Join(arns, ", ")))}
}

// writeProposal prints the narrower request as a manifest on stdout, and
// on stderr what the engine proved of it; --proof writes the questions as
// leash simulate requests.
func writeProposal(r requestAudit, a *auditedRequest, report *usage.Report, doc *policy.Document, stdout, stderr io.Writer) error {
	entries, err := usage.Propose(a.entries, report, r.keepResources)
	if err != nil {
		return &inputerr.Error{Source: "--propose", Msg: fmt.Sprintf("request %s: %v", report.Request, err)}
	}
	proposed, err := usage.WithEntries(a.cr, entries)
	if err != nil {
		return err
	}
	pdoc, err := operator.RequestedPolicy(proposed)
	if err != nil {
		return fmt.Errorf("the proposed request does not read back: %w", err)
	}
	proof, err := usage.Prove(report, doc, pdoc)
	if err != nil {
		return err
	}
	if failed := proof.Failures(); len(failed) > 0 {
		return fmt.Errorf("the proposal for %s does not hold, so it is not printed: %s", report.Request, strings.Join(failed, "; "))
	}
	if r.proof != "" {
		if err := writeProofCases(r.proof, report.Principal, pdoc, proof); err != nil {
			return err
		}
	}
	manifest, err := manifestYAML(proposed)
	if err != nil {
		return err
	}
	if _, err := stdout.Write(manifest); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "leash audit: proposed %d statementEntries for %s in place of %d; proven with leash's engine: %d observed calls decided as the request decides them (%d allowed), %d unused actions refused\n",
		len(entries), termsafe.Escape(report.Request), len(a.entries), len(proof.Calls), proof.Allowed(), len(proof.Unused))
	if unused := report.Unused(); len(unused) > 0 {
		fmt.Fprintf(stderr, "leash audit: taken away: %s\n", termsafe.Escape(strings.Join(unused, ", ")))
	}
	return nil
}

// writeProofCases writes the proof's questions as leash simulate requests
// (JSON Lines) against the proposed policy: the observed calls first, then
// the unused actions.
func writeProofCases(path, principal string, pdoc *policy.Document, proof *usage.Proof) error {
	text, err := json.Marshal(pdoc)
	if err != nil {
		return err
	}
	var out []byte
	for _, c := range append(slices.Clone(proof.Calls), proof.Unused...) {
		sc := simulate.Case{Principal: principal, Action: c.Action, Resource: c.Resource,
			IdentityPolicies: []simulate.NamedDocument{{Name: "proposed", Document: text}}}
		if account := analyze.KeyAccount(c.Action, c.Resource); account != "" {
			sc.ResourcePolicy = json.RawMessage(analyze.DefaultKeyPolicy(account))
		}
		if c.Region != "" {
			region, _ := json.Marshal(c.Region) // a string always encodes
			sc.Context = map[string]json.RawMessage{"aws:RequestedRegion": region}
		}
		line, err := json.Marshal(sc)
		if err != nil {
			return err
		}
		out = append(append(out, line...), '\n')
	}
	if err := atomicfile.Write(path, out, 0o644); err != nil {
		return &inputerr.Error{Source: "--proof", Msg: err.Error()}
	}
	return nil
}

// manifestYAML is the request as a manifest to apply: its kind, name,
// namespace, labels, annotations and spec, nothing the server set. Keys
// keep the order of the API's fields (effect, action, resource in an
// entry), as requests are written, rather than YAML's sorted one.
func manifestYAML(cr *leashv1.CredentialsRequest) ([]byte, error) {
	type meta struct {
		Name        string            `json:"name"`
		Namespace   string            `json:"namespace"`
		Labels      map[string]string `json:"labels,omitempty"`
		Annotations map[string]string `json:"annotations,omitempty"`
	}
	m := meta{Name: cr.Name, Namespace: cr.Namespace, Labels: cr.Labels, Annotations: map[string]string{}}
	for k, v := range cr.Annotations {
		if k != "kubectl.kubernetes.io/last-applied-configuration" {
			m.Annotations[k] = v
		}
	}
	text, err := json.Marshal(struct {
		APIVersion string                         `json:"apiVersion"`
		Kind       string                         `json:"kind"`
		Metadata   meta                           `json:"metadata"`
		Spec       leashv1.CredentialsRequestSpec `json:"spec"`
	}{leashv1.GroupVersion.String(), "CredentialsRequest", m, cr.Spec})
	if err != nil {
		return nil, err
	}
	// JSON is YAML: read as a node it keeps its keys' order; written in
	// block style it reads as a manifest.
	var doc yaml.Node
	if err := yaml.Unmarshal(text, &doc); err != nil {
		return nil, err
	}
	blockStyle(&doc)
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	return out.Bytes(), enc.Close()
}

// blockStyle turns the flow style and quotes JSON was read with into
// YAML's block style, quoting only what must be.
func blockStyle(n *yaml.Node) {
	n.Style = 0
	for _, c := range n.Content {
		blockStyle(c)
	}
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
