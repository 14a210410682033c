package iamclient

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/aws/smithy-go"
)

// The secret half of a key must not reach a log, an error or a status by
// accident: every way Go formats a value redacts it.
func TestSecretNeverFormats(t *testing.T) {
	const secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	key := AccessKey{ID: "AKIAIOSFODNN7EXAMPLE", Secret: NewSecret(secret), SessionToken: NewSecret("token-value")}
	var logged strings.Builder
	slog.New(slog.NewTextHandler(&logged, nil)).Info("key", "key", key, "secret", key.Secret)
	js, _ := json.Marshal(key)
	outs := []string{
		fmt.Sprintf("%v %+v %#v %s %q %x", key, key, key, key.Secret, key.Secret, key.Secret),
		fmt.Sprint(key), string(js), logged.String(), fmt.Errorf("wrap: %v", key).Error(),
	}
	for _, out := range outs {
		if strings.Contains(out, secret) || strings.Contains(out, "token-value") {
			t.Errorf("a secret leaked: %s", out)
		}
	}
	if key.Secret.Reveal() != secret {
		t.Error("Reveal does not return the secret")
	}
}

func TestResultCode(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{nil, "OK"},
		{fmt.Errorf("iam:GetUser x: %w", &smithy.GenericAPIError{Code: "NoSuchEntity"}), "NoSuchEntity"},
		{errors.New("dial tcp: refused"), "NetworkError"},
	}
	for _, tt := range tests {
		if got := ResultCode(tt.err); got != tt.want {
			t.Errorf("ResultCode(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
	if !IsNotFound(tests[1].err) || IsAlreadyExists(tests[1].err) {
		t.Error("predicates do not follow the code")
	}
}

func TestPrincipalName(t *testing.T) {
	tests := []struct {
		arn, kind, name string
		ok              bool
	}{
		{"arn:aws:iam::111122223333:user/leash/prod/alice", "user", "alice", true},
		{"arn:aws-cn:iam::111122223333:role/ccm", "role", "ccm", true},
		{"arn:aws:sts::111122223333:assumed-role/ccm/session-1", "role", "ccm", true},
		{"arn:aws:iam::111122223333:root", "", "", false},
		{"arn:aws:sts::111122223333:federated-user/bob", "", "", false},
		{"not an arn", "", "", false},
	}
	for _, tt := range tests {
		kind, name, ok := PrincipalName(tt.arn)
		if kind != tt.kind || name != tt.name || ok != tt.ok {
			t.Errorf("PrincipalName(%q) = %q %q %v", tt.arn, kind, name, ok)
		}
	}
}
