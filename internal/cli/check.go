package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"leash.dev/leash/analyze"
	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/internal/inputerr"
	"leash.dev/leash/policy"
	"leash.dev/leash/policy/catalog"
)

// errFindings is check's "no": a finding at or above --fail-on.
var errFindings = errors.New("findings at or above --fail-on")

type checkOptions struct {
	output, failOn, principal string
	principalGiven            bool
	only, mustAllow, mustDeny []string
	user, role                string
	boundary                  string
	scps                      []string
	accountFile               string
	iamAccess
	files  []string
	stdout io.Writer
}

func newCheck() *cobra.Command {
	o := checkOptions{iamAccess: iamAccess{getenv: os.Getenv}}
	const short = "Review policies for unknown actions, over-broad grants and privilege escalation"
	cmd := &cobra.Command{
		Use:   "check [FILE|DIR...]",
		Short: short,
		Long: long(short, `check reviews the policies of one principal and prints a finding for each
problem, with its severity, a stable ID, the policy, the JSON path of the
offending element, what is wrong and how to fix it: actions, resources and
condition keys AWS does not know (checked against leash's embedded catalog),
grants wider than a workload needs, and privilege-escalation paths, including
a principal that can widen its own permissions.

The policies are policy documents (.json), CredentialsRequest manifests
(.yaml, their statementEntries) or folders of either, taken together as the
identity policies of one principal; or, with --user or --role, the policies
IAM holds for a user or role: inline, attached, its groups' (for a user) and
its permissions boundary, and a role's trust policy (AssumeRolePolicyDocument),
reviewed for who may assume the role: a wildcard principal, a whole account,
web identity without the subject pinned by StringEquals or without the
audience pinned (LEASH-TRUST-*). These are read from AWS with the credentials in
AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN, or from a
shared-credentials file (--credentials-file, its [default] profile), or from a
named profile (--profile, or AWS_PROFILE), or from
leash local with --endpoint. Files given beside --user or --role are added to
the principal's policies, to review a change before it is made.

Escalation to the principal itself is checked when the principal is known:
--principal, or the user or role read with --user or --role.

Escalation paths are asked of leash's engine with the principal's permissions
boundary (read with --user or --role, or given with --boundary) and the
service control policies given with --scp: a path they refuse is not
reported. Conditions the paths fix are decided (iam:PassedToService,
iam:PolicyARN on the Attach*Policy paths, and dates against the current
time); other conditions are taken to hold.

Assertions for CI:
  --only PATTERN        every action any Allow statement grants, after
                        expanding patterns and NotAction with the catalog,
                        must match one of the patterns (LEASH-ONLY-001)
  --must-allow ACTION   the policies must allow ACTION, on "*" or on the
                        resource after @ (LEASH-ASSERT-ALLOW)
  --must-deny ACTION    the policies must not allow ACTION: on the resource
                        after @, or, without one, on "*" and on every
                        resource an Allow statement names for it
                        (LEASH-ASSERT-DENY)
An assertion's ACTION may be a pattern; each action it matches is asked.
Assertions are answered by leash's engine for the principal (without
--principal, --user or --role: `+analyze.DefaultPrincipal+`),
with the permissions boundary applied and without request context: an Allow
whose conditions need context does not count as allowed. A failed assertion
is a high finding with the engine's reason.

Output: text, one finding a line (severity, ID, policy, path, message and
fix) and a summary; json, {"findings": [...], "summary": {...}}; or sarif,
SARIF 2.1.0 for code scanning (GitHub's upload-sarif action), with each
finding located at the line of its JSON path in the file.

Exit status: 0 when no finding is at or above --fail-on, 1 when one is, 2 on
bad input (a file that does not parse, an unknown flag value, a principal IAM
does not know or credentials it refuses).`),
		Example: example(
			"# Review a policy and a folder of CredentialsRequests as one principal's",
			"leash check ccm.json examples/ack-s3",
			"",
			"# The pruned node role may only describe EC2",
			"leash check --only 'ec2:Describe*' node-role.json",
			"",
			"# The CI role escalates to itself unless its self-deny guard is in the set",
			"leash check --principal arn:aws:iam::120392301094:role/krops-ci-e2e ack-mgmt.json self-deny.json",
			"",
			"# Assert what a request may and may not do; fail only on critical findings otherwise",
			"leash check --must-allow s3:GetObject@arn:aws:s3:::krops-a/report.csv \\",
			"  --must-deny iam:CreateUser --must-deny 'iam:*AccessKey*' --fail-on critical policy.json",
			"",
			"# A live role in AWS, as SARIF for code scanning",
			"leash check --role krops-ci-e2e --output sarif > leash.sarif",
			"",
			"# A user in leash local, with its administrator's key",
			"leash check --user alice --endpoint http://127.0.0.1:4566 \\",
			"  --credentials-file leash-data/admin-credentials",
		),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.files = args
			o.principalGiven = cmd.Flags().Changed("principal")
			o.stdout = cmd.OutOrStdout()
			return runCheck(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	f.SortFlags = false
	f.StringVar(&o.output, "output", "text",
		"output `FORMAT`: text, json, or sarif for code scanning (e.g. --output sarif)")
	f.StringVar(&o.failOn, "fail-on", "high",
		"exit 1 on a finding of this `SEVERITY` or higher: info, low, medium, high or critical (e.g. --fail-on critical)")
	f.StringSliceVar(&o.only, "only", nil,
		"action `PATTERN` the policies may grant; every granted action must match one; repeat or separate with commas (e.g. --only 'ec2:Describe*')")
	f.StringArrayVar(&o.mustAllow, "must-allow", nil,
		"`ACTION[@RESOURCE]` the policies must allow (resource \"*\" when not given); repeat for several (e.g. --must-allow s3:GetObject@arn:aws:s3:::krops-a/key)")
	f.StringArrayVar(&o.mustDeny, "must-deny", nil,
		"`ACTION[@RESOURCE]` the policies must not allow, on any resource they grant it on when none is given; repeat for several (e.g. --must-deny iam:CreateUser)")
	f.StringVar(&o.principal, "principal", analyze.DefaultPrincipal,
		"`ARN` of the user or role holding the policies: escalation to itself is checked when it is given, and the assertions ask about it (e.g. --principal arn:aws:iam::120392301094:role/krops-ci-e2e)")
	f.StringVar(&o.user, "user", "",
		"IAM user `NAME` (or ARN) whose policies to read from IAM: inline, attached, its groups' and its boundary (e.g. --user alice)")
	f.StringVar(&o.role, "role", "",
		"IAM role `NAME` or ARN whose policies to read from IAM: inline, attached, its boundary and its trust policy; give the ARN for a role with a path (e.g. --role krops-ci-e2e)")
	f.StringVar(&o.boundary, "boundary", "",
		"permissions boundary `FILE` of the principal: escalation paths it refuses are not reported; with --user or --role the boundary is read from IAM instead (e.g. --boundary boundary.json)")
	f.StringArrayVar(&o.scps, "scp", nil,
		"service control policy `FILE[,FILE...]` over the principal's account: each --scp is one organization level, root first, as for leash simulate; escalation paths they refuse are not reported (e.g. --scp full-access.json --scp ou.json,deny-iam.json)")
	f.StringVar(&o.accountFile, "account", "",
		"account snapshot `FILE` (aws iam get-account-authorization-details) to read --principal, --user or --role from instead of IAM; adds the escalations reachable through other principals (LEASH-ESC-CHAIN) (e.g. --account account.json)")
	o.addFlags(f, "read --user or --role")
	cmd.AddCommand(newCheckWorkload(), newCheckUpgrade())
	return cmd
}

// checkInput is the policies under review, and where each came from.
type checkInput struct {
	principal string // known principal, "" when none was given
	identity  []policy.Named
	boundary  *policy.Named
	trust     *policy.Named // a role's, read from IAM
	scps      [][]policy.Named
	// sources maps a policy's name to the file (or ARN) it came from.
	sources map[string]string
	// account is the snapshot of --account, for the chain findings.
	account *accountCheck
}

func runCheck(ctx context.Context, o checkOptions) error {
	if o.output != "text" && o.output != "json" && o.output != "sarif" {
		return &inputerr.Error{Msg: fmt.Sprintf("--output %q: use text, json or sarif", o.output)}
	}
	failOn, err := analyze.ParseSeverity(o.failOn)
	if err != nil {
		return &inputerr.Error{Msg: "--fail-on: " + err.Error()}
	}
	cat := catalog.Default()
	for _, p := range o.only {
		if len(cat.Expand(p)) == 0 {
			return &inputerr.Error{Msg: "--only: " + analyze.NoMatch(cat, p)}
		}
	}
	var asserts []analyze.Assertion
	for _, spec := range o.mustAllow {
		a, err := analyze.ParseAssertion(cat, "--must-allow", spec, true)
		if err != nil {
			return err
		}
		asserts = append(asserts, a)
	}
	for _, spec := range o.mustDeny {
		a, err := analyze.ParseAssertion(cat, "--must-deny", spec, false)
		if err != nil {
			return err
		}
		asserts = append(asserts, a)
	}
	in, err := loadCheckInput(ctx, o)
	if err != nil {
		return err
	}

	findings, err := analyze.Check(analyze.Principal{Identity: in.identity, Boundary: in.boundary, Trust: in.trust, ARN: in.principal, SCPs: in.scps}, o.only, asserts, cat)
	if err != nil {
		return err
	}
	if chain := in.account.chainFindings(); len(chain) > 0 {
		findings = append(findings, chain...)
		analyze.SortFindings(findings)
	}

	policies := len(in.identity)
	if in.boundary != nil {
		policies++
	}
	if in.trust != nil {
		policies++
	}
	for _, level := range in.scps {
		policies += len(level)
	}
	sum := analyze.Summarize(findings, failOn, policies)
	switch o.output {
	case "json":
		err = analyze.WriteJSON(o.stdout, findings, sum)
	case "sarif":
		err = analyze.WriteSARIF(o.stdout, findings, in.sources)
	default:
		err = analyze.WriteText(o.stdout, findings, sum, "policy", "policies")
	}
	if err != nil {
		return err
	}
	if sum.Failing > 0 {
		return errFindings
	}
	return nil
}

// loadCheckInput reads the files and, with --user or --role, the
// principal's policies from IAM.
func loadCheckInput(ctx context.Context, o checkOptions) (checkInput, error) {
	if o.accountFile != "" {
		return loadAccountInput(o)
	}
	in := checkInput{sources: map[string]string{}}
	if o.principalGiven {
		if o.principal == "" {
			return in, &inputerr.Error{Msg: "--principal: give the ARN of a user or role, such as arn:aws:iam::123456789012:role/ci"}
		}
		in.principal = o.principal
	}
	if o.user != "" && o.role != "" {
		return in, &inputerr.Error{Msg: "--user and --role: give one principal to read from IAM"}
	}
	if o.user == "" && o.role == "" {
		if o.given() {
			return in, &inputerr.Error{Msg: "--endpoint, --credentials-file and --profile read IAM for --user or --role; give one of those (e.g. --user alice)"}
		}
		if len(o.files) == 0 {
			return in, &inputerr.Error{Msg: "give policy files or folders to check, or a principal to read from IAM with --user NAME or --role NAME"}
		}
	}
	if err := in.addFiles(o.files); err != nil {
		return in, err
	}
	if err := loadCaps(o, &in); err != nil {
		return in, err
	}
	if o.user != "" || o.role != "" {
		if err := loadPrincipal(ctx, o, &in); err != nil {
			return in, err
		}
	}
	return in, nil
}

// addFiles adds the policies of the files and folders given as arguments
// to the principal's identity policies.
func (in *checkInput) addFiles(files []string) error {
	if len(files) == 0 {
		return nil
	}
	named, err := loadPolicies(files)
	if err != nil {
		return err
	}
	for _, n := range named {
		in.identity = append(in.identity, policy.Named{Name: n.Name, Document: n.Doc})
		file, _, _ := strings.Cut(n.Name, "#") // a CredentialsRequest is named file#namespace/name
		in.sources[n.Name] = file
	}
	return nil
}

// loadPrincipal reads a user's or role's policies from IAM into in.
func loadPrincipal(ctx context.Context, o checkOptions, in *checkInput) error {
	flag, name := "--user", o.user
	if o.role != "" {
		flag, name = "--role", o.role
	}
	kind := strings.TrimPrefix(flag, "--")
	arn := ""
	if strings.HasPrefix(name, "arn:") {
		got, short, ok := iamclient.PrincipalName(name)
		if !ok || got != kind {
			return &inputerr.Error{Msg: fmt.Sprintf("%s %s: not an IAM %s ARN; give a name or arn:aws:iam::ACCOUNT:%s/NAME", flag, name, kind, kind)}
		}
		arn, name = name, short
	}
	client, err := o.client(ctx, 3)
	if err != nil {
		return err
	}
	iamError := func(err error) error {
		if iamclient.IsNotFound(err) {
			return &inputerr.Error{Msg: fmt.Sprintf("%s %s: IAM has no such %s (%v)", flag, name, kind, err)}
		}
		return &inputerr.Error{Msg: fmt.Sprintf("%s %s: reading its policies from IAM: %v", flag, name, err)}
	}
	pp, err := client.LoadPolicies(ctx, kind, name)
	if err != nil {
		if errors.As(err, new(*iamclient.PolicyParseError)) {
			return &inputerr.Error{Msg: fmt.Sprintf("%s %s: %v", flag, name, err)}
		}
		return iamError(err)
	}
	switch {
	case arn != "":
	case kind == "user":
		u, err := client.GetUser(ctx, name)
		if err != nil {
			return iamError(err)
		}
		arn = u.ARN
	default:
		// A role with a path needs its ARN given: build it from the
		// caller's account.
		id, err := client.CallerIdentity(ctx)
		if err != nil {
			return iamError(err)
		}
		caller, _ := policy.ParseARN(id.ARN)
		arn = policy.ARN{Partition: caller.Partition, Service: "iam", Account: id.Account, Resource: "role/" + name}.String()
	}
	if kind == "role" {
		trust, err := roleTrust(ctx, client, name)
		if errors.As(err, new(*inputerr.Error)) {
			return err
		}
		if err != nil {
			return iamError(err)
		}
		in.trust = trust
		in.sources[trust.Name] = arn
	}
	if !o.principalGiven {
		in.principal = arn
	}
	in.identity = append(in.identity, pp.Identity...)
	for _, n := range pp.Identity {
		in.sources[n.Name] = iamSource(n.Name, arn)
	}
	if pp.Boundary != nil {
		in.boundary = pp.Boundary
		in.sources[pp.Boundary.Name] = iamSource(pp.Boundary.Name, arn)
	}
	return nil
}

// iamSource is where a policy read from IAM is: a managed policy's ARN,
// else (an inline policy) the ARN of the principal holding it.
func iamSource(name, principal string) string {
	if strings.HasPrefix(name, "arn:") {
		return name
	}
	return principal
}

// trustPolicyName names a role's trust policy in findings, as IAM names the
// document (GetRole's AssumeRolePolicyDocument).
const trustPolicyName = "AssumeRolePolicyDocument"

// roleTrust reads a role's trust policy, to review who may assume the role
// beside what the role may do.
func roleTrust(ctx context.Context, client *iamclient.Client, name string) (*policy.Named, error) {
	r, err := client.GetRole(ctx, name)
	if err != nil {
		return nil, err
	}
	doc, err := policy.Parse([]byte(r.Trust), policy.Trust)
	if err != nil {
		return nil, &inputerr.Error{Msg: fmt.Sprintf("--role %s: its trust policy does not parse: %v", name, err)}
	}
	return &policy.Named{Name: trustPolicyName, Document: doc}, nil
}
