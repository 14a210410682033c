package audit

import "testing"

func TestSelects(t *testing.T) {
	session := func(arn, issuer string) *Identity {
		id := &Identity{ARN: arn}
		if issuer != "" {
			id.SessionContext = &SessionContext{SessionIssuer: &SessionIssuer{ARN: issuer}}
		}
		return id
	}
	tests := []struct {
		name      string
		principal string
		id        *Identity
		want      bool
	}{
		{"no principal selects everything", "", session("arn:aws:iam::111122223333:user/a", ""), true},
		{"a role selects a session it issued", "arn:aws:iam::111122223333:role/ci/deploy", session("arn:aws:sts::111122223333:assumed-role/deploy/s", "arn:aws:iam::111122223333:role/ci/deploy"), true},
		{"a role selects its session by ARN alone", "arn:aws:iam::111122223333:role/ci/deploy", session("arn:aws:sts::111122223333:assumed-role/deploy/s", ""), true},
		{"a role does not select a role named with it as a prefix", "arn:aws:iam::111122223333:role/deploy", session("arn:aws:sts::111122223333:assumed-role/deploy-staging/s", ""), false},
		{"a role does not select its namesake in another account", "arn:aws:iam::111122223333:role/deploy", session("arn:aws:sts::444455556666:assumed-role/deploy/s", ""), false},
		{"a role in another partition", "arn:aws-cn:iam::111122223333:role/deploy", session("arn:aws-cn:sts::111122223333:assumed-role/deploy/s", ""), true},
		{"a role ARN without a name selects no session", "arn:aws:iam::111122223333:role/", session("arn:aws:sts::111122223333:assumed-role//s", ""), false},
		{"a user selects its session token's calls, which carry its ARN", "arn:aws:iam::111122223333:user/alice", session("arn:aws:iam::111122223333:user/alice", ""), true},
		{"a user selects the federated users it issued", "arn:aws:iam::111122223333:user/alice", session("arn:aws:sts::111122223333:federated-user/f", "arn:aws:iam::111122223333:user/alice"), true},
		{"a user does not select a user named with it as a prefix", "arn:aws:iam::111122223333:user/alice", session("arn:aws:iam::111122223333:user/alice2", ""), false},
		{"a session selects only itself", "arn:aws:sts::111122223333:assumed-role/deploy/s", session("arn:aws:sts::111122223333:assumed-role/deploy/s2", "arn:aws:iam::111122223333:role/deploy"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Selects(tt.principal, tt.id); got != tt.want {
				t.Errorf("Selects(%q, %q) = %t, want %t", tt.principal, tt.id.ARN, got, tt.want)
			}
		})
	}
}
