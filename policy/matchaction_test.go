package policy

import "testing"

func TestMatchAction(t *testing.T) {
	tests := []struct {
		pattern, action string
		want            bool
	}{
		{"s3:Get*", "s3:GetObject", true},
		{"s3:get*", "S3:GETOBJECT", true},
		{"s3:Get*", "s3:PutObject", false},
		{"ec2:Describe?nstances", "ec2:DescribeInstances", true},
		{"*", "iam:PassRole", true},
		{"s3:GetBucket*", "s3:GetBucketLocation", true},
		{"s3:*", "s3:Get*", true},
		{"s3:GetObject", "s3:GetObjectAcl", false},
	}
	for _, tt := range tests {
		if got := MatchAction(tt.pattern, tt.action); got != tt.want {
			t.Errorf("MatchAction(%q, %q) = %v, want %v", tt.pattern, tt.action, got, tt.want)
		}
	}
}
