package policy

import "testing"

func TestEquivalent(t *testing.T) {
	base := `{"Version":"2012-10-17","Statement":[
	  {"Effect":"Allow","Action":["ec2:DescribeInstances","s3:GetObject"],"Resource":"arn:aws:s3:::b/*"},
	  {"Effect":"Deny","Action":"iam:*","Resource":"*","Condition":{"StringEquals":{"aws:RequestedRegion":["eu-west-1","eu-north-1"]}}}]}`
	tests := []struct {
		name  string
		other string
		same  bool
	}{
		{"identical", base, true},
		{"statement order, Sid, action case and order, single value versus list, value order do not matter", `{
		  "Statement":[
		  {"Sid":"x","Effect":"Deny","Action":["IAM:*"],"Resource":["*"],"Condition":{"StringEquals":{"AWS:RequestedRegion":["eu-north-1","eu-west-1"]}}},
		  {"Effect":"Allow","Action":["s3:GetObject","EC2:describeinstances","s3:GetObject"],"Resource":"arn:aws:s3:::b/*"}],
		  "Version":"2012-10-17"}`, true},
		{"a changed resource differs (resources are case-sensitive)", `{"Version":"2012-10-17","Statement":[
		  {"Effect":"Allow","Action":["ec2:DescribeInstances","s3:GetObject"],"Resource":"arn:aws:s3:::B/*"},
		  {"Effect":"Deny","Action":"iam:*","Resource":"*","Condition":{"StringEquals":{"aws:RequestedRegion":["eu-west-1","eu-north-1"]}}}]}`, false},
		{"an added action differs", `{"Version":"2012-10-17","Statement":[
		  {"Effect":"Allow","Action":["ec2:DescribeInstances","s3:GetObject","s3:PutObject"],"Resource":"arn:aws:s3:::b/*"},
		  {"Effect":"Deny","Action":"iam:*","Resource":"*","Condition":{"StringEquals":{"aws:RequestedRegion":["eu-west-1","eu-north-1"]}}}]}`, false},
		{"a dropped condition value differs", `{"Version":"2012-10-17","Statement":[
		  {"Effect":"Allow","Action":["ec2:DescribeInstances","s3:GetObject"],"Resource":"arn:aws:s3:::b/*"},
		  {"Effect":"Deny","Action":"iam:*","Resource":"*","Condition":{"StringEquals":{"aws:RequestedRegion":"eu-west-1"}}}]}`, false},
		{"Action versus NotAction differs", `{"Version":"2012-10-17","Statement":[
		  {"Effect":"Allow","NotAction":["ec2:DescribeInstances","s3:GetObject"],"Resource":"arn:aws:s3:::b/*"},
		  {"Effect":"Deny","Action":"iam:*","Resource":"*","Condition":{"StringEquals":{"aws:RequestedRegion":["eu-west-1","eu-north-1"]}}}]}`, false},
		{"a missing Version (the 2008 rules) differs", `{"Statement":[
		  {"Effect":"Allow","Action":["ec2:DescribeInstances","s3:GetObject"],"Resource":"arn:aws:s3:::b/*"},
		  {"Effect":"Deny","Action":"iam:*","Resource":"*","Condition":{"StringEquals":{"aws:RequestedRegion":["eu-west-1","eu-north-1"]}}}]}`, false},
	}
	a, err := Parse([]byte(base), Identity)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := Parse([]byte(tt.other), Identity)
			if err != nil {
				t.Fatal(err)
			}
			if got := Equivalent(a, b); got != tt.same {
				t.Errorf("Equivalent = %v, want %v", got, tt.same)
			}
			if got := Equivalent(b, a); got != tt.same {
				t.Errorf("Equivalent (swapped) = %v, want %v", got, tt.same)
			}
		})
	}
}
