package analyze

import (
	"fmt"
	"strings"

	"leash.dev/leash/policy/catalog"
)

// ActionExpander turns an action pattern into the catalog's actions it
// matches, for Questions; a pattern the catalog does not know is kept as
// written, so a grant of an action newer than the catalog is still asked
// about.
func ActionExpander(cat *catalog.Catalog) func(pattern string) []string {
	return func(pattern string) []string {
		actions := cat.Expand(pattern)
		if len(actions) == 0 {
			return []string{pattern}
		}
		out := make([]string, len(actions))
		for i, a := range actions {
			out[i] = a.String()
		}
		return out
	}
}

// NoMatch says that a pattern matches nothing and what might have been meant.
func NoMatch(c *catalog.Catalog, pattern string) string {
	if pattern == "" {
		return "an empty pattern matches no action; give one such as 'ec2:Describe*'"
	}
	msg := fmt.Sprintf("no action matches %q", pattern)
	if s := c.Suggest(pattern); len(s) > 0 {
		alternatives := s[0]
		if len(s) > 1 {
			alternatives = strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
		}
		return msg + "; did you mean " + alternatives + "?"
	}
	prefix, _, hasColon := strings.Cut(pattern, ":")
	if _, known := c.Service(prefix); known {
		return msg + fmt.Sprintf("; see leash expand '%s:*' for the service's actions", strings.ToLower(prefix))
	}
	if !hasColon {
		return msg + "; an action is named service:Action, such as ec2:DescribeInstances"
	}
	return msg + fmt.Sprintf("; no service has the prefix %q", prefix)
}
