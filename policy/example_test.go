package policy_test

import (
	"errors"
	"fmt"

	"leash.dev/leash/policy"
)

// Parse a document, compile it once, and decide requests against it; Explain
// names the statements that decided.
func Example() {
	doc, err := policy.Parse([]byte(`{
	  "Version": "2012-10-17",
	  "Statement": [
	    {"Sid": "ReadReports", "Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::amzn-s3-demo-bucket/reports/*"},
	    {"Sid": "NoSecrets", "Effect": "Deny", "Action": "s3:*", "Resource": "arn:aws:s3:::amzn-s3-demo-bucket/reports/secret/*"}
	  ]
	}`), policy.Identity)
	if err != nil {
		fmt.Println(err)
		return
	}
	policies, err := policy.Compile(policy.Set{Identity: []policy.Named{{Name: "reports-reader", Document: doc}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, key := range []string{"reports/2024.csv", "reports/secret/pay.csv", "invoices/1.pdf"} {
		res := policies.Explain(&policy.Request{
			Principal: "arn:aws:iam::111122223333:user/alice",
			Action:    "s3:GetObject",
			Resource:  "arn:aws:s3:::amzn-s3-demo-bucket/" + key,
		})
		fmt.Printf("%s: %s\n", key, res.Decision)
		for _, s := range res.Statements {
			fmt.Printf("  decided by %s\n", s)
		}
		for _, r := range res.Reasons {
			fmt.Printf("  %s: %s\n", r.Code, r.Message)
		}
	}
	// Output:
	// reports/2024.csv: Allowed
	//   decided by identity policy "reports-reader" Statement[0] (Sid "ReadReports")
	// reports/secret/pay.csv: ExplicitDeny
	//   decided by identity policy "reports-reader" Statement[1] (Sid "NoSecrets")
	//   ExplicitDeny: explicitly denied by identity policy "reports-reader" Statement[1] (Sid "NoSecrets")
	// invoices/1.pdf: ImplicitDeny
	//   NoAllow: no identity-based policy statement allows the action on the resource
}

// A ParseError says where a document is wrong, as a path and as values.
func ExampleParseError() {
	_, err := policy.Parse([]byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"},{"Effect":"Permit","Action":"s3:PutObject","Resource":"*"}]}`), policy.Identity)
	fmt.Println(err)
	var pe *policy.ParseError
	if errors.As(err, &pe) {
		fmt.Printf("statement %d, field %s\n", pe.Statement, pe.Field)
	}
	// Output:
	// Statement[1].Effect: must be "Allow" or "Deny", got "Permit"
	// statement 1, field Effect
}

// Evaluate compiles and decides in one call; a condition that fails is named
// in the reasons with the values it compared.
func ExampleEvaluate() {
	doc, err := policy.Parse([]byte(`{
	  "Version": "2012-10-17",
	  "Statement": {
	    "Effect": "Allow", "Action": "ec2:StopInstances", "Resource": "*",
	    "Condition": {"StringEquals": {"aws:ResourceTag/team": "${aws:PrincipalTag/team}"}}
	  }
	}`), policy.Identity)
	if err != nil {
		fmt.Println(err)
		return
	}
	req := policy.Request{
		Principal: "arn:aws:iam::111122223333:user/alice",
		Action:    "ec2:StopInstances",
		Resource:  "arn:aws:ec2:us-east-1:111122223333:instance/i-0abc",
	}
	req.Context.Set("aws:PrincipalTag/team", "web")
	req.Context.Set("aws:ResourceTag/team", "db")
	res, err := policy.Evaluate(policy.Set{Identity: []policy.Named{{Name: "stop-own", Document: doc}}}, &req)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Decision)
	for _, r := range res.Reasons {
		fmt.Printf("%s: %s\n", r.Code, r.Message)
	}
	// Output:
	// ImplicitDeny
	// NoAllow: no identity-based policy statement allows the action on the resource
	// ConditionFailed: identity policy "stop-own" Statement[0]: condition StringEquals aws:ResourceTag/team ["${aws:PrincipalTag/team}"] does not hold for ["db"]
}
