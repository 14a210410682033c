package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	ststypes "github.com/aws/aws-sdk-go-v2/service/sts/types"

	"leash.dev/leash/internal/broker"
	"leash.dev/leash/localaws"
	"leash.dev/leash/localaws/localtest"
)

// leash local records an AssumeRole with its session tags and the
// session's key as CloudTrail does, so leash audit --pod over its log
// lists a pod's calls: here the administrator plays the broker, assuming a
// role with the broker's five tags through the AWS SDK, and the session
// makes one call that is allowed and one that is refused. LookupEvents
// answers newest first.
func TestAuditPodOverLeashLocalLog(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	l := localtest.Start(t, localaws.Config{DataDir: dir, AccountID: "111122223333"})
	admin := l.IAM(nil)
	trust := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::111122223333:root"},"Action":["sts:AssumeRole","sts:TagSession"]}]}`
	if _, err := admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("shop-web"), AssumeRolePolicyDocument: aws.String(trust)}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: aws.String("shop-web"), PolicyName: aws.String("read"),
		PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"iam:GetRole","Resource":"arn:aws:iam::111122223333:role/shop-web"}]}`)}); err != nil {
		t.Fatal(err)
	}
	stsc := l.STS(nil)
	me, err := stsc.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil {
		t.Fatal(err)
	}
	tag := func(k, v string) ststypes.Tag { return ststypes.Tag{Key: aws.String(k), Value: aws.String(v)} }
	out, err := stsc.AssumeRole(ctx, &sts.AssumeRoleInput{
		RoleArn: aws.String("arn:aws:iam::111122223333:role/shop-web"), RoleSessionName: aws.String("web-0"),
		Tags: []ststypes.Tag{
			tag(broker.TagNamespace, "shop"), tag(broker.TagServiceAccount, "web"), tag(broker.TagPodName, "web-0"),
			tag(broker.TagPodUID, "0b6f3c1e-5a8d-4c2f-9e61-3f0a2b7c9d14"), tag(broker.TagCluster, "test"),
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	c := out.Credentials
	pod := iam.New(iam.Options{Region: "us-east-1", BaseEndpoint: aws.String(l.URL), Retryer: localtest.Retryer(),
		Credentials: credentials.NewStaticCredentialsProvider(*c.AccessKeyId, *c.SecretAccessKey, *c.SessionToken)})
	if _, err := pod.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("shop-web")}); err != nil {
		t.Fatal(err)
	}
	if _, err := pod.ListUsers(ctx, &iam.ListUsersInput{}); err == nil {
		t.Fatal("ListUsers by the pod's session was allowed; the test wants it refused")
	}

	tests := []struct {
		name  string
		args  []string
		calls []string
	}{
		{"any caller", []string{"--pod", "shop/web-0"}, []string{"sts:AssumeRole", "iam:GetRole", "iam:ListUsers"}},
		{"the broker's principal", []string{"--pod", "shop/web-0", "--broker", aws.ToString(me.Arn)}, []string{"sts:AssumeRole", "iam:GetRole", "iam:ListUsers"}},
		{"another broker", []string{"--pod", "shop/web-0", "--broker", "arn:aws:iam::111122223333:role/leash-broker"}, nil},
		{"another pod", []string{"--pod", "shop/web-1"}, nil},
		// Through LookupEvents: the sessions are looked up by event name,
		// the calls read in the window, as for leash revoke's chains.
		{"through leash local's LookupEvents", []string{"--pod", "shop/web-0", "--broker", aws.ToString(me.Arn), "--endpoint", l.URL, "--credentials-file", l.AdminCredentialsPath()},
			[]string{"iam:ListUsers", "iam:GetRole", "sts:AssumeRole"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := append([]string{"audit", "--output", "json"}, tt.args...)
			if !slices.Contains(tt.args, "--endpoint") {
				args = append(args, "--data", dir)
			}
			if status := Run(ctx, args, nil, &stdout, &stderr); status != ExitOK {
				t.Fatalf("status %d; stderr: %s", status, stderr.String())
			}
			var calls []string
			for line := range strings.Lines(stdout.String()) {
				var r struct {
					EventSource, EventName string
				}
				if err := json.Unmarshal([]byte(line), &r); err != nil {
					t.Fatalf("%v: %s", err, line)
				}
				calls = append(calls, strings.TrimSuffix(r.EventSource, ".amazonaws.com")+":"+r.EventName)
			}
			if !slices.Equal(calls, tt.calls) {
				t.Errorf("calls %v, want %v; stderr: %s", calls, tt.calls, stderr.String())
			}
			if len(tt.calls) > 0 && !strings.Contains(stderr.String(), "pod shop/web-0 uid 0b6f3c1e-5a8d-4c2f-9e61-3f0a2b7c9d14: session arn:aws:sts::111122223333:assumed-role/shop-web/web-0") {
				t.Errorf("stderr does not name the session and its pod UID: %s", stderr.String())
			}
			if strings.Contains(stdout.String()+stderr.String(), *c.SecretAccessKey) || strings.Contains(stdout.String()+stderr.String(), *c.SessionToken) {
				t.Error("the output holds the session's secret")
			}
		})
	}
}
