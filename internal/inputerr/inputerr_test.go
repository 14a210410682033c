package inputerr

import (
	"errors"
	"fmt"
	"testing"
)

func TestErrorNamesWhereThenWhat(t *testing.T) {
	cases := []struct {
		name string
		err  Error
		want string
	}{
		{"a file and a path in it", Error{Source: "policy.json", Field: "Statement[0].Action", Msg: "unknown action"}, "policy.json: Statement[0].Action: unknown action"},
		{"a flag alone", Error{Source: "--output", Msg: `must be "table" or "json"`}, `--output: must be "table" or "json"`},
		{"a request field alone", Error{Field: "spec.secretRef", Msg: "needs both namespace and name"}, "spec.secretRef: needs both namespace and name"},
		{"a message that names its own place", Error{Msg: "--user alice: IAM has no such user"}, "--user alice: IAM has no such user"},
		{"a file name and keys written in the file are escaped", Error{Source: "p\x1b[8m.json", Field: "Statement[0].Condition.StringEquals\n: x", Msg: "unknown condition operator"},
			`p\x1b[8m.json: Statement[0].Condition.StringEquals\n: x: unknown condition operator`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.err.Error(); got != c.want {
				t.Errorf("Error() = %q, want %q", got, c.want)
			}
		})
	}
}

func TestErrorIsFoundWhenWrapped(t *testing.T) {
	err := fmt.Errorf("apply: %w", &Error{Field: "spec.providerSpec", Msg: "is missing"})
	var in *Error
	if !errors.As(err, &in) || in.Field != "spec.providerSpec" {
		t.Errorf("errors.As(%v) found %+v", err, in)
	}
}
