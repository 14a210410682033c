package policy

import (
	"reflect"
	"testing"
)

func TestAddPrincipalKeys(t *testing.T) {
	tests := []struct {
		principal string
		want      map[string][]string
	}{
		{"arn:aws:iam::111122223333:user/ops/alice", map[string][]string{
			"aws:principalarn": {"arn:aws:iam::111122223333:user/ops/alice"}, "aws:principalaccount": {"111122223333"},
			"aws:principaltype": {"User"}, "aws:username": {"alice"}}},
		{"arn:aws:sts::111122223333:assumed-role/app/i-0abc", map[string][]string{
			"aws:principalarn": {"arn:aws:iam::111122223333:role/app"}, "aws:principalaccount": {"111122223333"}, "aws:principaltype": {"AssumedRole"}}},
		{"arn:aws:iam::111122223333:root", map[string][]string{
			"aws:principalarn": {"arn:aws:iam::111122223333:root"}, "aws:principalaccount": {"111122223333"}, "aws:principaltype": {"Account"}}},
		{"arn:aws:sts::111122223333:federated-user/bob", map[string][]string{
			"aws:principalarn": {"arn:aws:sts::111122223333:federated-user/bob"}, "aws:principalaccount": {"111122223333"}, "aws:principaltype": {"FederatedUser"}}},
		{"ec2.amazonaws.com", map[string][]string{}},
		{"", map[string][]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.principal, func(t *testing.T) {
			var c Context
			c.AddPrincipalKeys(tt.principal)
			got := map[string][]string{}
			for _, k := range c.Keys() {
				got[k], _ = c.Get(k)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
	t.Run("keys already in the context are kept", func(t *testing.T) {
		var c Context
		c.Set("AWS:username", "carol")
		c.AddPrincipalKeys("arn:aws:iam::111122223333:user/alice")
		if v, _ := c.Get("aws:username"); v[0] != "carol" {
			t.Errorf("aws:username = %v, want carol", v)
		}
	})
}
