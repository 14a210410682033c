package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"leash.dev/leash/analyze"
	"leash.dev/leash/internal/inputerr"
	"leash.dev/leash/policy/catalog"
)

func newExpand() *cobra.Command {
	var (
		output string
		access []string
	)
	const short = "List the AWS actions that IAM action patterns match"
	cmd := &cobra.Command{
		Use:   "expand PATTERN...",
		Short: short,
		Long: long(short, `expand looks each pattern up in leash's catalog of AWS actions and prints every
action that matches, as IAM would match it: case-insensitively, * standing
for any run of characters and ? for any one. "*" is every action,
"ec2:Describe*" every EC2 action whose name starts with Describe, "*:Get*"
every service's Get actions. Each line is the action and its access level
(List, Read, Write, Permissions management or Tagging), sorted by service and
name; the count goes to stderr.

A pattern that matches nothing is an error, with the closest actions as a
suggestion ("did you mean ec2:DescribeInstances?"); nothing is printed until
every pattern is known.

The catalog is AWS's service authorization reference as carried by the npm
package `+catalog.DataSet+` `+catalog.DataVersion+`, embedded in leash: no
network is needed.

Exit status: 0 when every pattern matches an action, 2 on bad input (a
pattern that matches nothing, an unknown --access or --output).`),
		Example: example(
			"# Every EC2 Describe action, with its access level",
			"leash expand 'ec2:Describe*'",
			"",
			"# Several patterns; the actions of either, once each",
			"leash expand 's3:Get*' 's3:List*'",
			"",
			"# Only what changes permissions, as JSON with resource types and condition keys",
			"leash expand 'iam:*' --access 'Permissions management' --output json",
		),
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return fmt.Errorf("give one or more action patterns, such as 'ec2:Describe*'")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runExpand(cmd.OutOrStdout(), cmd.ErrOrStderr(), args, access, output)
		},
	}
	f := cmd.Flags()
	f.SortFlags = false
	f.StringSliceVar(&access, "access", nil,
		"only actions of access `LEVEL`: List, Read, Write, \"Permissions management\" or Tagging; repeat or separate with commas for several (e.g. --access Write,Tagging)")
	f.StringVar(&output, "output", "table",
		"output `FORMAT`: table, or json for an array of actions with their access level, resource types and condition keys (e.g. --output json)")
	return cmd
}

// expandedAction is an action in `leash expand --output json`.
type expandedAction struct {
	Action        string                 `json:"action"`
	AccessLevel   catalog.AccessLevel    `json:"accessLevel"`
	ResourceTypes []expandedResourceType `json:"resourceTypes"`
	ConditionKeys []string               `json:"conditionKeys"`
}

type expandedResourceType struct {
	Name     string `json:"name"`
	ARN      string `json:"arn"`
	Required bool   `json:"required"`
}

func runExpand(stdout, stderr io.Writer, patterns, access []string, output string) error {
	if output != "table" && output != "json" {
		return &inputerr.Error{Msg: fmt.Sprintf("--output: must be \"table\" or \"json\", got %q", output)}
	}
	levels, err := accessLevels(access)
	if err != nil {
		return err
	}
	c := catalog.Default()
	var actions []catalog.Action
	var unknown []string
	for _, p := range patterns {
		found := c.Expand(p)
		if len(found) == 0 {
			unknown = append(unknown, analyze.NoMatch(c, p))
		}
		actions = append(actions, found...)
	}
	if len(unknown) > 0 {
		return &inputerr.Error{Msg: strings.Join(unknown, "\n")}
	}
	if len(patterns) > 1 {
		// The order of Expand, over all patterns, each action once.
		slices.SortFunc(actions, catalog.Compare)
		actions = slices.CompactFunc(actions, func(a, b catalog.Action) bool { return catalog.Compare(a, b) == 0 })
	}
	if len(levels) > 0 {
		actions = slices.DeleteFunc(actions, func(a catalog.Action) bool { return !slices.Contains(levels, a.Access) })
	}

	if output == "json" {
		out := make([]expandedAction, 0, len(actions))
		for _, a := range actions {
			e := expandedAction{Action: a.String(), AccessLevel: a.Access, ResourceTypes: []expandedResourceType{}, ConditionKeys: c.ActionConditionKeys(a)}
			for _, r := range a.Resources {
				rt, _ := c.ResourceType(a.Service, r.Type)
				e.ResourceTypes = append(e.ResourceTypes, expandedResourceType{Name: r.Type, ARN: rt.ARN, Required: r.Required})
			}
			if e.ConditionKeys == nil {
				e.ConditionKeys = []string{}
			}
			out = append(out, e)
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return err
		}
	} else {
		var b strings.Builder
		for _, a := range actions {
			b.WriteString(a.String())
			b.WriteByte('\t')
			b.WriteString(string(a.Access))
			b.WriteByte('\n')
		}
		if _, err := io.WriteString(stdout, b.String()); err != nil {
			return err
		}
	}
	noun := "actions"
	if len(actions) == 1 {
		noun = "action"
	}
	fmt.Fprintf(stderr, "%d %s (%s %s)\n", len(actions), noun, catalog.DataSet, catalog.DataVersion)
	return nil
}

// accessLevels reads --access values, case-insensitively and with - or _ for
// the space in "Permissions management".
func accessLevels(values []string) ([]catalog.AccessLevel, error) {
	all := []catalog.AccessLevel{catalog.List, catalog.Read, catalog.Write, catalog.PermissionsManagement, catalog.Tagging}
	var out []catalog.AccessLevel
	for _, v := range values {
		norm := strings.NewReplacer("-", " ", "_", " ").Replace(strings.TrimSpace(v))
		i := slices.IndexFunc(all, func(l catalog.AccessLevel) bool { return strings.EqualFold(string(l), norm) })
		if i < 0 {
			return nil, &inputerr.Error{Msg: fmt.Sprintf("--access %q: use List, Read, Write, \"Permissions management\" or Tagging", v)}
		}
		out = append(out, all[i])
	}
	return out, nil
}
