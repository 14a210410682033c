// Command trail writes a synthetic CloudTrail folder (the S3 layout, gzip
// files of 1,000 records each, as CloudTrail delivers them every few
// minutes) for timing `leash audit --trail-dir` on a realistic volume: a
// dozen roles' sessions and a few users calling EC2, S3 and IAM.
//
//	go run ./bench/trail -out /tmp/trail -records 100000
//	/usr/bin/time -v leash audit --trail-dir /tmp/trail --principal arn:aws:iam::111122223333:role/ci-deploy --policy
package main

import (
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"
)

const account = "111122223333"

var calls = []struct{ source, name string }{
	{"ec2", "DescribeInstances"}, {"ec2", "DescribeSecurityGroups"}, {"ec2", "TerminateInstances"},
	{"ec2", "CreateTags"}, {"s3", "GetObject"}, {"s3", "PutObject"}, {"s3", "ListObjectsV2"},
	{"iam", "GetRole"}, {"iam", "ListRoles"}, {"sts", "GetCallerIdentity"},
}

func main() {
	out := flag.String("out", "", "folder to write")
	records := flag.Int("records", 100000, "number of records")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "give -out DIR")
		os.Exit(2)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	start := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	const perFile = 1000
	for f := 0; f*perFile < *records; f++ {
		t := start.Add(time.Duration(f) * 5 * time.Minute)
		dir := filepath.Join(*out, "AWSLogs", account, "CloudTrail", "us-east-1", t.Format("2006/01/02"))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			panic(err)
		}
		var recs []map[string]any
		for i := 0; i < perFile && f*perFile+i < *records; i++ {
			recs = append(recs, record(rng, t.Add(time.Duration(i)*300*time.Millisecond)))
		}
		path := filepath.Join(dir, fmt.Sprintf("%s_CloudTrail_us-east-1_%s_%05d.json.gz", account, t.Format("20060102T1504Z"), f))
		file, err := os.Create(path)
		if err != nil {
			panic(err)
		}
		zw := gzip.NewWriter(file)
		if err := json.NewEncoder(zw).Encode(map[string]any{"Records": recs}); err != nil {
			panic(err)
		}
		if err := zw.Close(); err != nil {
			panic(err)
		}
		if err := file.Close(); err != nil {
			panic(err)
		}
	}
}

func record(rng *rand.Rand, at time.Time) map[string]any {
	role := []string{"ci-deploy", "app-reader", "karpenter", "ebs-csi", "external-dns", "cert-manager",
		"aws-lb-controller", "ack-s3", "ack-iam", "ack-rds", "capa-controller", "ccm"}[rng.IntN(12)]
	c := calls[rng.IntN(len(calls))]
	session := fmt.Sprintf("s-%d", rng.IntN(50))
	params := map[string]any{}
	var resources []map[string]string
	switch c.source {
	case "s3":
		bucket, key := fmt.Sprintf("%s-artifacts", role), fmt.Sprintf("builds/%d/app.tar.gz", rng.IntN(500))
		params["bucketName"], params["key"] = bucket, key
		resources = []map[string]string{{"ARN": "arn:aws:s3:::" + bucket + "/" + key, "type": "AWS::S3::Object"}}
	case "ec2":
		if c.name == "TerminateInstances" || c.name == "CreateTags" {
			params["instancesSet"] = map[string]any{"items": []map[string]string{{"instanceId": fmt.Sprintf("i-%017x", rng.Uint64()>>4)}}}
		}
	case "iam":
		if c.name == "GetRole" {
			params["roleName"] = role
		}
	}
	rec := map[string]any{
		"eventVersion": "1.09",
		"userIdentity": map[string]any{
			"type": "AssumedRole", "principalId": "AROAEXAMPLE" + role + ":" + session,
			"arn":       "arn:aws:sts::" + account + ":assumed-role/" + role + "/" + session,
			"accountId": account, "accessKeyId": "ASIAEXAMPLE" + session,
			"sessionContext": map[string]any{
				"sessionIssuer": map[string]string{"type": "Role", "principalId": "AROAEXAMPLE" + role,
					"arn": "arn:aws:iam::" + account + ":role/" + role, "accountId": account, "userName": role},
				"attributes": map[string]string{"creationDate": at.Add(-30 * time.Minute).Format(time.RFC3339), "mfaAuthenticated": "false"},
			},
		},
		"eventTime": at.Format(time.RFC3339), "eventSource": c.source + ".amazonaws.com", "eventName": c.name,
		"awsRegion": "us-east-1", "sourceIPAddress": fmt.Sprintf("10.0.%d.%d", rng.IntN(256), rng.IntN(256)),
		"userAgent":         "aws-sdk-go-v2/1.30.3 os/linux lang/go#1.22.5",
		"requestParameters": params, "requestID": fmt.Sprintf("%016x", rng.Uint64()), "eventID": fmt.Sprintf("%016x", rng.Uint64()),
		"readOnly":  c.name != "TerminateInstances" && c.name != "PutObject" && c.name != "CreateTags",
		"eventType": "AwsApiCall", "recipientAccountId": account,
	}
	if resources != nil {
		rec["resources"] = resources
	}
	if rng.IntN(20) == 0 {
		rec["errorCode"], rec["errorMessage"] = "AccessDenied", "User is not authorized to perform this operation"
	}
	return rec
}
