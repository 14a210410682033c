package cli

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"leash.dev/leash/analyze"
	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/admission"
	"leash.dev/leash/internal/inputerr"
	"leash.dev/leash/internal/oidcissuer"
	"leash.dev/leash/internal/termsafe"
	"leash.dev/leash/internal/workload"
)

func newCheckWorkload() *cobra.Command {
	var (
		output, failOn string
		suggest        bool
		nodeRole       []string
		nodeRoleOnly   []string
		nodeRoleName   string
		audience, mode string
		access         = iamAccess{getenv: os.Getenv}
	)
	const short = "Check that workloads consume leash's credentials without a way back to the node's role"
	cmd := &cobra.Command{
		Use:   "workload FILE|DIR...",
		Short: short,
		Long: long(short, `workload reads Deployment, DaemonSet, StatefulSet, Job, CronJob and Pod
manifests with the CredentialsRequests and NetworkPolicies beside them, and
reports, for every pod that AWS credentials reach (a Secret a
CredentialsRequest writes, one AWS_SHARED_CREDENTIALS_FILE points into, one
holding credential keys, a key taken as AWS_ACCESS_KEY_ID and the like, or a
projected token for the roles' audience, --oidc-audience, default
sts.amazonaws.com); the others are listed as skipped:

  LEASH-WL-001  hostNetwork: true (the node's instance metadata is reachable)
  LEASH-WL-002  AWS_EC2_METADATA_DISABLED not "true" (a missing or empty file
                makes the AWS SDK use the node's role, silently)
  LEASH-WL-003  AWS_SHARED_CREDENTIALS_FILE not the mounted Secret's file
  LEASH-WL-004  a credentials Secret that no CredentialsRequest writes
  LEASH-WL-005  with STS (--mode and the request's leash.dev/mode say which
                requests are): no projected token, a token whose audience is
                not --oidc-audience, or one mounted elsewhere than cloudTokenPath
  LEASH-WL-006  no egress NetworkPolicy keeping it from 169.254.169.254 and
                fd00:ec2::254 (a host-network pod is governed by none)
  LEASH-WL-007  a credential Secret marked optional: without it the SDK
                falls back to the node's role
  LEASH-WL-012  a leash.dev/credentials annotation (on the pod template or
                its ServiceAccount) naming no request, a missing one, or one
                whose Secret is in another namespace

A pod template that names its request with leash.dev/credentials is checked
as the admission webhook stores it: wired to the request's Secret, with the
variables and, for an STS request, the token (docs/admission.md).

A pod template (or its ServiceAccount) annotated leash.dev/imds: metadata
keeps IMDS and may run in the host's network (the cloud controller manager
reads its instance's metadata): WL-001, -002, -003, -006 and -007 give way to

  LEASH-WL-008  the credentials Secret is optional
  LEASH-WL-009  AWS_SHARED_CREDENTIALS_FILE not a file of the mounted Secret
  LEASH-WL-010  another credential variable or profile is set
  LEASH-WL-011  the node role grants more than --node-role-only, or its
                policies were not given (--node-role-policy FILE, or
                --node-role NAME to read them from IAM)

With --suggest, a NetworkPolicy that closes LEASH-WL-006 is printed for each
pod that lacks one. Exit status: 0 clean, 1 findings at or above --fail-on,
2 bad input.`),
		Example: example(
			"# The cloud controller manager's request, Deployment and egress policy",
			"leash check workload examples/ccm/",
			"",
			"# The cloud controller manager keeps IMDS; its node role may only describe EC2",
			"leash check workload examples/ccm/ --node-role-policy examples/node-role/ccm-node-role-policy.json",
			"",
			"# The same, with the node role read from IAM",
			"leash check workload examples/ccm/ --node-role eks-node",
			"",
			"# Print an egress policy for the pods that have none",
			"leash check workload deploy/ --suggest",
		),
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			threshold, err := analyze.ParseSeverity(failOn)
			if err != nil {
				return &inputerr.Error{Msg: "--fail-on: " + err.Error()}
			}
			if output != "text" && output != "json" && output != "sarif" {
				return &inputerr.Error{Msg: fmt.Sprintf("--output %q: use text, json or sarif", output)}
			}
			files, err := manifestFiles(args)
			if err != nil {
				return err
			}
			roles, err := readNodeRole(nodeRole, nodeRoleOnly)
			if err != nil {
				return err
			}
			live, err := readNodeRoleIAM(cmd.Context(), access, nodeRoleName)
			if err != nil {
				return err
			}
			roles = append(roles, live...)
			set, err := workload.Read(files...)
			if err != nil {
				return &inputerr.Error{Msg: err.Error()}
			}
			switch leashv1.CredentialsMode(mode) {
			case leashv1.ModeMint, leashv1.ModePassthrough, leashv1.ModeManual, leashv1.ModeSTS, leashv1.ModeBroker:
			default:
				return &inputerr.Error{Source: "--mode", Msg: fmt.Sprintf("%q is not a mode; use Mint, Passthrough, Manual, STS or Broker (the cluster's, as the operator runs)", mode)}
			}
			set.NodeRole, set.NodeRoleOnly, set.Audience, set.Mode = roles, nodeRoleOnly, audience, leashv1.CredentialsMode(mode)
			// A pod that names its request (leash.dev/credentials) is checked
			// as admission stores it, with the cluster's mode (--mode) and
			// audience deciding which requests get a token.
			if err := admission.WireSet(set, admission.Wiring{Mode: set.Mode, Audience: audience}); err != nil {
				return &inputerr.Error{Msg: err.Error()}
			}
			findings := workload.Check(set)
			out := cmd.OutOrStdout()
			sum := analyze.Summarize(findings, threshold, len(set.Pods))
			switch output {
			case "json":
				err = writeWorkloadJSON(out, findings, sum, workload.Skipped(set))
			case "sarif":
				err = analyze.WriteSARIF(out, findings, nil)
			default:
				err = analyze.WriteText(out, findings, sum, "pod", "pods")
				if err == nil {
					err = writeSkipped(out, workload.Skipped(set))
				}
			}
			if err != nil {
				return err
			}
			if suggest {
				for _, p := range set.Pods {
					if !lacksEgress(findings, p.Source) {
						continue
					}
					np, err := workload.Suggest(p)
					if err != nil {
						fmt.Fprintf(out, "---\n# no suggestion: %s\n", termsafe.Escape(err.Error()))
						continue
					}
					note := ""
					if p.Spec.HostNetwork {
						note = " (it governs the pod only once hostNetwork is removed: LEASH-WL-001)"
					}
					// The source names the manifest's file and pod: escaped, it
					// cannot end the YAML comment.
					fmt.Fprintf(out, "---\n# for %s%s\n%s", termsafe.Escape(p.Source), note, np)
				}
			}
			if sum.Failing > 0 {
				return errFindings
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&output, "output", "text", "`FORMAT`: text, json or sarif")
	f.StringVar(&failOn, "fail-on", "high", "lowest `SEVERITY` that makes the exit status 1: info, low, medium, high or critical")
	f.BoolVar(&suggest, "suggest", false, "print an egress NetworkPolicy that keeps each pod without one from the instance metadata service")
	f.StringArrayVar(&nodeRole, "node-role-policy", nil, "policy document `FILE` (JSON) of the node's instance role, checked for pods under the metadata profile; repeat for each")
	f.StringVar(&nodeRoleName, "node-role", "", "IAM role `NAME` or ARN of the nodes' instance profile, whose policies to read from IAM and check for pods under the metadata profile (e.g. --node-role eks-node)")
	access.addFlags(f, "read --node-role")
	f.StringVar(&mode, "mode", string(leashv1.ModeManual), "the cluster's credentials `MODE` (the operator's): Mint, Passthrough, Manual, STS or Broker; with a request's leash.dev/mode it decides which requests are STS or Broker and need a projected token (in Manual, STS are those with stsIAMRoleARN)")
	f.StringVar(&audience, "oidc-audience", oidcissuer.DefaultAudience, "`AUDIENCE` the roles trust in a projected service account token (the operator's --oidc-audience): STS requests' tokens must carry it")
	f.StringSliceVar(&nodeRoleOnly, "node-role-only", workload.DefaultNodeRoleOnly, "action `PATTERN` the node role may grant under the metadata profile; repeat or separate with commas")
	return cmd
}

func lacksEgress(findings []analyze.Finding, source string) bool {
	for _, f := range findings {
		if f.ID == "LEASH-WL-006" && f.Policy == source {
			return true
		}
	}
	return false
}

// manifestFiles lists the YAML files of the arguments, folders searched.
func manifestFiles(args []string) ([]string, error) {
	var files []string
	err := eachFile(args, func(path string, named bool) error {
		if named || strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml") {
			files = append(files, path)
		}
		return nil
	})
	return files, err
}
