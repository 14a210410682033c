package cli

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"leash.dev/leash/internal/admission/webhookcert"
	"leash.dev/leash/internal/inputerr"
)

func TestWebhookCertOptions(t *testing.T) {
	defaults := webhookCertFlags{service: webhookcert.DefaultService, configuration: webhookcert.DefaultConfiguration, secret: webhookcert.DefaultSecret}
	t.Run("webhook off: no rotator", func(t *testing.T) {
		if o, err := defaults.options(0, "", "leash-system"); o != nil || err != nil {
			t.Errorf("options = %+v, %v; want none", o, err)
		}
	})
	t.Run("a cert dir serves its files: no rotator", func(t *testing.T) {
		if o, err := defaults.options(9443, "/certs", "leash-system"); o != nil || err != nil {
			t.Errorf("options = %+v, %v; want none", o, err)
		}
	})
	t.Run("the leader election namespace is the operator's", func(t *testing.T) {
		o, err := defaults.options(9443, "", "leash-system")
		if err != nil {
			t.Fatal(err)
		}
		want := webhookcert.Options{Namespace: "leash-system", Service: "leash-webhook", Configuration: "leash", Secret: "leash-webhook-tls"}
		if o.Namespace != want.Namespace || o.Service != want.Service || o.Configuration != want.Configuration || o.Secret != want.Secret {
			t.Errorf("options = %+v; want %+v", *o, want)
		}
	})
	bad := []struct {
		name      string
		flags     webhookCertFlags
		wantFlag  string
		wantInMsg string
	}{
		{"a Service name that is no DNS label names --webhook-service", webhookCertFlags{"Leash_Webhook", "leash", "leash-webhook-tls"}, "--webhook-service", `"Leash_Webhook"`},
		{"a bad configuration name names --webhook-configuration", webhookCertFlags{"leash-webhook", "Leash", "leash-webhook-tls"}, "--webhook-configuration", `"Leash"`},
		{"a bad Secret name names --webhook-cert-secret", webhookCertFlags{"leash-webhook", "leash", "TLS!"}, "--webhook-cert-secret", `"TLS!"`},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			o, err := tc.flags.options(9443, "", "leash-system")
			if o != nil {
				t.Errorf("options = %+v; want none with the error", *o)
			}
			var ie *inputerr.Error
			if !errors.As(err, &ie) || ie.Source != tc.wantFlag || !strings.Contains(ie.Msg, tc.wantInMsg) {
				t.Errorf("options: %v; want an input error naming %s and %s", err, tc.wantFlag, tc.wantInMsg)
			}
		})
	}
}

func TestOperatorNamespace(t *testing.T) {
	dir := t.TempDir()
	saFile := filepath.Join(dir, "namespace")
	if err := os.WriteFile(saFile, []byte("from-pod\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, leader, env, file, want string
	}{
		{"the leader election namespace comes first", "leash-system", "from-env", saFile, "leash-system"},
		{"then POD_NAMESPACE", "", "from-env", saFile, "from-env"},
		{"then the pod's service account namespace", "", "", saFile, "from-pod"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("POD_NAMESPACE", tc.env)
			got, err := operatorNamespace(tc.leader, tc.file)
			if err != nil || got != tc.want {
				t.Errorf("operatorNamespace = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	t.Run("outside a pod with no flag: refused, naming the flag", func(t *testing.T) {
		t.Setenv("POD_NAMESPACE", "")
		_, err := operatorNamespace("", filepath.Join(dir, "absent"))
		var ie *inputerr.Error
		if !errors.As(err, &ie) || ie.Source != "--leader-election-namespace" || !strings.Contains(ie.Msg, "--webhook-cert-dir") {
			t.Errorf("operatorNamespace: %v; want an input error naming --leader-election-namespace and the other way out", err)
		}
	})
}
