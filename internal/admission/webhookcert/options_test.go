package webhookcert

import (
	"strings"
	"testing"
	"time"
)

func TestOptionsRefused(t *testing.T) {
	cases := []struct {
		name string
		o    Options
		want string
	}{
		{"the namespace is required", Options{}, "namespace: empty"},
		{"a service name must be a DNS label", Options{Namespace: "leash-system", Service: "Leash.Webhook"}, `service: "Leash.Webhook" is not a valid name`},
		{"a secret name must be a DNS subdomain", Options{Namespace: "leash-system", Secret: "tls_secret"}, `secret: "tls_secret" is not a valid name`},
		{"a CA renewed before its whole life would renew every resync", Options{Namespace: "n", CAValidity: time.Hour, CARenewBefore: time.Hour}, "CA renew-before"},
		{"a certificate renewed before its whole life would renew every resync", Options{Namespace: "n", CertValidity: time.Hour, CertRenewBefore: 2 * time.Hour}, "certificate renew-before 2h0m0s is not shorter than its validity"},
		{"a certificate must be due before its CA", Options{Namespace: "n", CertRenewBefore: 100 * 24 * time.Hour, CertValidity: 200 * 24 * time.Hour}, "not shorter than the CA's"},
		{"a resync must come before the certificate is due", Options{Namespace: "n", CAValidity: time.Hour, CARenewBefore: 30 * time.Minute, CertValidity: 20 * time.Minute, CertRenewBefore: 10 * time.Second, Resync: time.Minute}, "resync interval"},
		{"negative durations are refused", Options{Namespace: "n", Resync: -time.Second}, "negative"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(nil, tc.o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("New: %v; want an error with %q", err, tc.want)
			}
		})
	}
	if _, err := New(nil, Options{Namespace: "leash-system"}); err != nil {
		t.Errorf("the defaults are refused: %v", err)
	}
}
