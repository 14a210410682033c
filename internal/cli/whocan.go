package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"leash.dev/leash/internal/inputerr"
	"leash.dev/leash/internal/mapfile"
	"leash.dev/leash/internal/simulate"
	"leash.dev/leash/internal/whocan"
	"leash.dev/leash/policy"
	"leash.dev/leash/policy/catalog"
)

// errNobody is who-can's "no": no principal can.
var errNobody = errors.New("no principal can")

// errInterrupted is work stopped by SIGINT or SIGTERM.
var errInterrupted = errors.New("interrupted")

type whoCanOptions struct {
	accountFile       string
	orgDir            string
	scp, rcp, context []string
	resourcePolicy    string
	resourceAccount   string
	escalation, all   bool
	graphOnly         bool
	maxSteps          int
	timeLimit         time.Duration
	output            string
	iamAccess
	stdin          io.Reader
	stdout, stderr io.Writer
}

func newWhoCan() *cobra.Command {
	o := whoCanOptions{iamAccess: iamAccess{getenv: os.Getenv}}
	const short = "List the users, roles and role sessions of an account that can perform an action"
	cmd := &cobra.Command{
		Use:   "who-can ACTION [RESOURCE]",
		Short: short,
		Long: long(short, `who-can asks leash's engine, for every principal of an account, whether it
may perform ACTION on RESOURCE ("*" when not given), and lists those that may,
each with the statements that allow it: a user with its inline and attached
policies and its groups' (and its permissions boundary), a role as a session
of it, and each role session the --resource-policy names. For
sts:AssumeRole* on a role of the account, the role's trust policy is the
resource policy.

The account is a snapshot, the output of
  aws iam get-account-authorization-details > account.json
(given with --account; documents as objects or URL-encoded, several pages
one after another or as an array), or, without --account, the live account,
read the same way with the credentials of AWS_ACCESS_KEY_ID and
AWS_SECRET_ACCESS_KEY, --credentials-file or --profile, from AWS or from
leash local with --endpoint. A policy or group the snapshot names but does
not hold is reported as a warning under the principal: its answer may be
incomplete.

--escalation also lists every principal that can reach an allowed one, or
any permission, through other principals, with the shortest path step by
step: assuming a role its trust policy lets it assume, rewriting a role's
trust policy, creating an access key or a console password for a user,
passing a role to a service that trusts it (with the service's other
actions), and changing its own permissions (a policy on itself or its group,
a new version of a customer managed policy attached to it, joining a group;
with a permissions boundary, only if it may also lift the boundary), or
writing the policies of a principal it can act as. A step's service actions
count only when allowed on any resource of their type.

--org DIR asks every account of an organization at once: DIR holds the
outputs of the AWS Organizations CLI (the tree, the SCPs and RCPs attached
to the root, each OU and each account, their documents) and one snapshot per
account (docs/who-can.md shows the commands that write it). Each principal
is asked under its own account's SCPs, root first, and the RCPs of the
resource's account; neither applies to the management account. Requests
carry aws:PrincipalOrgID and aws:PrincipalOrgPaths, and paths cross
accounts where trust policies let them: any permission gained in one
account acts only as that account's principals.

--all lists the denied principals too, with their decision.

Building the escalation graph of a large account or organization takes
seconds: on a terminal its progress is shown on standard error, and SIGINT
or SIGTERM stop it at once. --max-steps N searches paths of at most N steps
and --time-limit D stops building the graph after D; either way the answer
says what was left unsearched.

Every request, the escalation graph's too, carries aws:RequestedRegion, as
every request to AWS does: --context aws:RequestedRegion=REGION, else
$AWS_REGION, else $AWS_DEFAULT_REGION, else us-east-1. A region not given
with --context is assumed, and the answer says so: a "deny outside these
regions" SCP refuses everything outside them.

Output: text, one principal a line (ARN, kind, and the deciding statements
or the path), and a last line "# region assumed: REGION" when it was;
json, {"action", "resource", "principals": [{"arn", "kind", "role",
"decision", "statements", "path", "incomplete"}], "region",
"regionAssumed"}; dot, a Graphviz digraph of the paths that reach the
answer (render with dot -Tsvg).

Exit status: 0 when at least one principal can (directly or, with
--escalation, by a path), 1 when none can, 2 on bad input, 130 when SIGINT
or SIGTERM stopped it.`),
		Example: example(
			"# Who can read the reports bucket, from a snapshot?",
			"aws iam get-account-authorization-details > account.json",
			"leash who-can s3:GetObject 'arn:aws:s3:::reports/*' --account account.json",
			"",
			"# And who can get there through other principals, drawn as a graph",
			"leash who-can s3:GetObject arn:aws:s3:::reports/q1.csv --account account.json \\",
			"  --escalation --output dot | dot -Tsvg > paths.svg",
			"",
			"# Who can assume the deploy role, under the organization's SCPs",
			"leash who-can sts:AssumeRole arn:aws:iam::111122223333:role/deploy --account account.json \\",
			"  --scp root.json --scp ou.json",
			"",
			"# Every account of an organization (docs/who-can.md writes the folder)",
			"leash who-can secretsmanager:GetSecretValue \\",
			"  arn:aws:secretsmanager:us-east-1:333333333333:secret:db-password-AbCdEf --org org --escalation",
			"",
			"# The live account of leash local",
			"leash who-can iam:CreateUser --endpoint http://127.0.0.1:4566 \\",
			"  --credentials-file leash-data/admin-credentials",
		),
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return &inputerr.Error{Msg: "give the ACTION to ask about, such as leash who-can s3:GetObject arn:aws:s3:::reports/q1.csv --account account.json"}
			}
			if len(args) > 2 {
				return &inputerr.Error{Msg: fmt.Sprintf("unexpected argument %q: give one ACTION and at most one RESOURCE", args[2])}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.stdin, o.stdout = cmd.InOrStdin(), cmd.OutOrStdout()
			resource := ""
			if len(args) == 2 {
				resource = args[1]
			}
			o.stderr = cmd.ErrOrStderr()
			return runWhoCan(cmd.Context(), o, args[0], resource)
		},
	}
	f := cmd.Flags()
	f.SortFlags = false
	f.StringVar(&o.accountFile, "account", "",
		"account snapshot `FILE` written by aws iam get-account-authorization-details (- for stdin); without it the live account is read (e.g. --account account.json)")
	f.StringVar(&o.orgDir, "org", "",
		"organization `DIR`: the AWS Organizations outputs and a snapshot per account, in place of --account, --scp and --rcp (e.g. --org org)")
	f.StringArrayVar(&o.scp, "scp", nil,
		"service control policy `FILE[,FILE...]`, one organization level per --scp, root first, as leash simulate takes them (e.g. --scp root.json --scp ou.json)")
	f.StringArrayVar(&o.rcp, "rcp", nil,
		"resource control policy `FILE[,FILE...]`, one level per --rcp (e.g. --rcp org-rcp.json)")
	f.StringVar(&o.resourcePolicy, "resource-policy", "",
		"the resource's policy `FILE` (bucket, key, queue policy); role sessions it names are asked too (e.g. --resource-policy bucket-policy.json)")
	f.StringVar(&o.resourceAccount, "resource-account", "",
		"`ID` of the account owning the resource, for an ARN that names none such as an S3 bucket's; without it the caller's own (e.g. --resource-account 333333333333)")
	f.StringArrayVar(&o.context, "context", nil,
		"condition key `key=value` of every request; repeat a key to make it multivalued; aws:RequestedRegion is $AWS_REGION, $AWS_DEFAULT_REGION or us-east-1 unless given (e.g. --context aws:RequestedRegion=eu-north-1)")
	f.BoolVar(&o.escalation, "escalation", false,
		"also list principals that reach the answer through other principals, with the shortest path (e.g. --escalation)")
	f.BoolVar(&o.all, "all", false,
		"list denied principals too, with their decision (e.g. --all)")
	f.StringVar(&o.output, "output", "text",
		"output `FORMAT`: text, json, or dot for a Graphviz digraph of the paths (e.g. --output json)")
	f.IntVar(&o.maxSteps, "max-steps", 0,
		"with --escalation, search paths of at most `N` steps; 0 for no bound (e.g. --max-steps 3)")
	f.DurationVar(&o.timeLimit, "time-limit", 0,
		"with --escalation, stop building the graph after `D` and answer with what was built; 0 for no limit (e.g. --time-limit 30s)")
	f.BoolVar(&o.graphOnly, "graph-only", false, "build the escalation graph, print its size and time, and answer nothing (for benchmarks)")
	_ = f.MarkHidden("graph-only")
	o.addFlags(f, "read the live account")
	return cmd
}

func runWhoCan(ctx context.Context, o whoCanOptions, action, resource string) error {
	if o.output != "text" && o.output != "json" && o.output != "dot" {
		return &inputerr.Error{Source: "--output", Msg: fmt.Sprintf("%q: use text, json or dot", o.output)}
	}
	if err := checkQuestion(catalog.Default(), action, resource); err != nil {
		return err
	}
	if o.maxSteps < 0 {
		return &inputerr.Error{Source: "--max-steps", Msg: fmt.Sprintf("%d: give a number of steps, 1 or more, or 0 for no bound", o.maxSteps)}
	}
	if o.timeLimit < 0 {
		return &inputerr.Error{Source: "--time-limit", Msg: fmt.Sprintf("%s: give a duration such as 30s or 2m, or 0 for no limit", o.timeLimit)}
	}
	if (o.maxSteps > 0 || o.timeLimit > 0) && !o.escalation && !o.graphOnly {
		return &inputerr.Error{Source: "--max-steps", Msg: "--max-steps and --time-limit bound the escalation search; add --escalation"}
	}
	q := whocan.Question{Action: action, Resource: resource, All: o.all, MaxSteps: o.maxSteps, ResourceAccount: o.resourceAccount}
	if o.resourceAccount != "" && !policy.IsAccountID(o.resourceAccount) {
		return &inputerr.Error{Source: "--resource-account", Msg: fmt.Sprintf("%q: give the 12-digit ID of the account owning the resource", o.resourceAccount)}
	}
	var err error
	if q.Context, err = simulate.ContextValues(o.context); err != nil {
		return err
	}
	if err := checkOrgFlags(o); err != nil {
		return err
	}
	var org whocan.Org
	if org.SCPs, err = simulate.ReadLevels("--scp", o.scp, policy.SCP); err != nil {
		return err
	}
	if org.RCPs, err = simulate.ReadLevels("--rcp", o.rcp, policy.RCP); err != nil {
		return err
	}
	if o.resourcePolicy != "" {
		kind := policy.ResourcePolicyKind(action, resource)
		if q.ResourcePolicy, err = simulate.ReadPolicy("--resource-policy", o.resourcePolicy, kind); err != nil {
			return err
		}
	}
	if o.orgDir != "" {
		return runWhoCanOrg(ctx, o, q)
	}
	var m *whocan.Model
	err = untilDone(ctx, "reading the account", func() error {
		snap, err := readSnapshot(ctx, o)
		if err != nil {
			return err
		}
		if m, err = whocan.NewModelFor(snap, org, modelAction(o, q)); err != nil {
			return &inputerr.Error{Msg: err.Error()}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return answerWhoCan(ctx, o, m, q, nil)
}

// untilDone runs work, and returns at once when ctx ends first (SIGINT,
// SIGTERM): reading and compiling a large snapshot takes seconds and looks
// at no context, and the process exits with the work left behind.
func untilDone(ctx context.Context, what string, work func() error) error {
	done := make(chan error, 1)
	go func() { done <- work() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return fmt.Errorf("stopped while %s: %w", what, errInterrupted)
	}
}

// answerWhoCan answers the question of the model and prints it, with the
// warnings about the input first.
func answerWhoCan(ctx context.Context, o whoCanOptions, m *whocan.Model, q whocan.Question, warnings []string) error {
	if ctx.Err() != nil { // a signal while the snapshot was read
		return fmt.Errorf("stopped after reading the account: %w", errInterrupted)
	}
	region, assumed := requestedRegion(q.Context, o.getenv)
	m.Defaults = map[string][]string{requestedRegionKey: region}
	if o.graphOnly {
		start := time.Now()
		g, err := buildGraph(ctx, m, o)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(o.stdout, "principals %d, edges %d, graph built in %s\n", len(m.Principals), g.Edges(), time.Since(start).Round(time.Millisecond))
		return err
	}
	var ans *whocan.Answer
	var err error
	if o.escalation {
		g, err := buildGraph(ctx, m, o)
		if err != nil {
			return err
		}
		ans, err = m.WhoCanReach(q, g)
		if err != nil {
			return &inputerr.Error{Source: "--resource-policy", Msg: err.Error()}
		}
	} else {
		ans, err = m.WhoCan(q)
	}
	if err != nil {
		return &inputerr.Error{Source: "--resource-policy", Msg: err.Error()}
	}
	ans.Region, ans.RegionAssumed = strings.Join(region, ","), assumed
	ans.Warnings = append(warnings, ans.Warnings...)
	switch o.output {
	case "json":
		err = whocan.WriteJSON(o.stdout, ans)
	case "dot":
		err = whocan.WriteDot(o.stdout, ans)
	default:
		err = whocan.WriteText(o.stdout, ans)
	}
	if err != nil {
		return err
	}
	if !ans.Allowed() {
		return errNobody
	}
	return nil
}

// readSnapshot reads --account, or the live account through the IAM access
// flags: both become the API's JSON and go through one parser.
func readSnapshot(ctx context.Context, o whoCanOptions) (*whocan.Snapshot, error) {
	if o.accountFile != "" {
		if o.given() {
			return nil, &inputerr.Error{Source: "--account", Msg: "reads a snapshot file; --endpoint, --credentials-file and --profile read the live account instead: give one or the other"}
		}
		var data []byte
		var err error
		if o.accountFile == "-" {
			data, err = io.ReadAll(o.stdin)
		} else {
			data, err = mapfile.Read(o.accountFile)
		}
		if err != nil {
			return nil, &inputerr.Error{Source: o.accountFile, Msg: fmt.Sprintf("cannot read (given to --account): %v", err)}
		}
		return whocan.Parse(data, o.accountFile)
	}
	client, err := o.client(ctx, 3)
	if err != nil {
		var ie *inputerr.Error
		if errors.As(err, &ie) {
			return nil, &inputerr.Error{Source: ie.Source, Field: ie.Field, Msg: ie.Msg + "; or give a snapshot with --account FILE"}
		}
		return nil, err
	}
	details, err := client.AccountAuthorizationDetails(ctx)
	if err != nil {
		return nil, &inputerr.Error{Msg: fmt.Sprintf("reading the live account: %v; check --endpoint and the credentials, or give a snapshot with --account FILE", err)}
	}
	data, err := details.JSON()
	if err != nil {
		return nil, err
	}
	source := "the live account"
	if o.endpoint != "" {
		source = o.endpoint
	}
	return whocan.Parse(data, source)
}

// checkQuestion refuses an action the catalog does not know (suggesting the
// nearest) and a resource that is not of a type the action acts on.
func checkQuestion(cat *catalog.Catalog, action, resource string) error {
	if strings.ContainsAny(action, "*?") || !strings.Contains(action, ":") {
		return &inputerr.Error{Source: "ACTION", Msg: fmt.Sprintf("%q: give one action as service:Action, such as s3:GetObject (leash expand lists the actions of a pattern)", action)}
	}
	a, ok := cat.Action(action)
	if !ok {
		fix := "use an action of the service authorization reference (leash expand 'SERVICE:*' lists a service's actions)"
		if s := cat.Suggest(action); len(s) > 0 {
			fix = "did you mean " + strings.Join(s, " or ") + "?"
		}
		return &inputerr.Error{Source: "ACTION", Msg: fmt.Sprintf("%q is not an action AWS knows; %s", action, fix)}
	}
	if resource == "" || resource == "*" {
		return nil
	}
	if _, ok := policy.ParseARN(resource); !ok || strings.ContainsAny(resource, "*?") {
		return &inputerr.Error{Source: "RESOURCE", Msg: fmt.Sprintf("%q is not a resource ARN; give one resource's ARN, such as arn:aws:s3:::reports/q1.csv, or leave RESOURCE out for \"*\"", resource)}
	}
	if len(a.Resources) == 0 {
		return &inputerr.Error{Source: "RESOURCE", Msg: fmt.Sprintf("%s acts on no resource type (it takes only \"*\"); leave RESOURCE out", a)}
	}
	var formats []string
	for _, ref := range a.Resources {
		rt, ok := cat.ResourceType(a.Service, ref.Type)
		if !ok {
			continue
		}
		if cat.ARNMatchesType(rt, resource) {
			return nil
		}
		formats = append(formats, fmt.Sprintf("%s (%s)", rt.Name, rt.ARN))
	}
	return &inputerr.Error{Source: "RESOURCE", Msg: fmt.Sprintf("%q is not a resource %s acts on; give an ARN of %s, or leave RESOURCE out for \"*\"", resource, a, strings.Join(formats, " or "))}
}

// buildGraph builds the escalation graph under --time-limit, showing its
// progress when standard error is a terminal, and stops at once when ctx
// ends (SIGINT, SIGTERM).
func buildGraph(ctx context.Context, m *whocan.Model, o whoCanOptions) (*whocan.Graph, error) {
	var opts whocan.BuildOptions
	if o.timeLimit > 0 {
		opts.Deadline = time.Now().Add(o.timeLimit)
	}
	start := time.Now()
	if f, ok := o.stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		opts.Progress = func(done, total int) {
			end := ""
			if done == total {
				end = "\n"
			}
			fmt.Fprintf(f, "\rescalation graph: %d of %d nodes, %s%s", done, total, time.Since(start).Round(100*time.Millisecond), end)
		}
	}
	g, err := m.BuildGraph(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("stopped before the escalation graph was built: %w", errInterrupted)
	}
	return g, nil
}

// modelAction is the one action a model needs compiling for: the
// question's, unless the escalation graph asks about every edge action.
func modelAction(o whoCanOptions, q whocan.Question) string {
	if o.escalation || o.graphOnly {
		return ""
	}
	return q.Action
}
