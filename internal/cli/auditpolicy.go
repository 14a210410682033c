package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"leash.dev/leash/internal/cloudtrail"
	"leash.dev/leash/internal/inputerr"
	"leash.dev/leash/internal/termsafe"
	"leash.dev/leash/localaws/audit"
)

// checkPolicyFlags refuses the flags that --policy cannot honour: a policy
// is one principal's, is printed as policy JSON, and is made of the calls
// that were allowed, which --denied would leave out.
func checkPolicyFlags(o auditOptions, outputSet bool) error {
	switch {
	case o.principal == "" && o.pod == "":
		return &inputerr.Error{Source: "--policy", Msg: "needs --principal or --pod: a policy is for one principal; give the role or user whose calls it should allow (e.g. --principal arn:aws:iam::111122223333:role/ci-deploy), or the pod (e.g. --pod shop/web-0)"}
	case o.denied:
		return &inputerr.Error{Source: "--policy", Msg: "--denied keeps only refused calls, and --policy grants none of those: drop --denied (the refused calls are listed on stderr)"}
	case outputSet:
		return &inputerr.Error{Source: "--policy", Msg: "prints the policy as JSON; --output formats the list of calls: drop --output"}
	}
	return nil
}

// writeObservedPolicy prints the policy of the selected calls on stdout and
// its notes on stderr, so that stdout can be saved as a policy file.
func writeObservedPolicy(ctx context.Context, src cloudtrail.Source, f audit.Filter, stdout, stderr io.Writer) error {
	b := cloudtrail.NewPolicyBuilder()
	if err := cloudtrail.Collect(ctx, src, f, func(e *audit.Event) error {
		b.Add(e)
		return nil
	}); err != nil {
		return err
	}
	doc, notes, err := b.Policy()
	for _, n := range notes {
		// A note quotes the record's action, resources and error code.
		fmt.Fprintf(stderr, "leash audit: %s\n", termsafe.Escape(n.String()))
	}
	if errors.Is(err, cloudtrail.ErrNothingGranted) {
		return &inputerr.Error{Source: "--policy", Msg: fmt.Sprintf("%d calls selected: %v", b.Events(), err)}
	}
	if err != nil {
		return err
	}
	compact, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, compact, "", "  "); err != nil {
		return err
	}
	out.WriteByte('\n')
	_, err = stdout.Write(out.Bytes())
	return err
}
