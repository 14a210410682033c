package oidcissuer

import (
	"strings"
	"testing"
)

func TestConditionPrefix(t *testing.T) {
	cases := []struct {
		name, issuer, want, errHas string
	}{
		{name: "host only", issuer: "https://oidc.example.com", want: "oidc.example.com"},
		{name: "trailing slash dropped", issuer: "https://oidc.example.com/", want: "oidc.example.com"},
		{name: "path kept", issuer: "https://s3.amazonaws.com/bucket/cluster", want: "s3.amazonaws.com/bucket/cluster"},
		{name: "path trailing slash dropped", issuer: "https://s3.amazonaws.com/bucket/cluster/", want: "s3.amazonaws.com/bucket/cluster"},
		{name: "port kept", issuer: "https://127.0.0.1:8443/issuer", want: "127.0.0.1:8443/issuer"},
		{name: "case kept as the token spells it", issuer: "https://OIDC.Example.com/Path", want: "OIDC.Example.com/Path"},
		{name: "http refused", issuer: "http://oidc.example.com", errHas: "https"},
		{name: "no scheme refused", issuer: "oidc.example.com/x", errHas: "https"},
		{name: "query refused", issuer: "https://oidc.example.com/?a=b", errHas: "query"},
		{name: "fragment refused", issuer: "https://oidc.example.com/#x", errHas: "fragment"},
		{name: "user info refused", issuer: "https://u@oidc.example.com", errHas: "user info"},
		{name: "empty refused", issuer: "", errHas: "https"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ConditionPrefix(c.issuer)
			if c.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), c.errHas) {
					t.Fatalf("ConditionPrefix(%q) = %q, %v; want an error naming %q", c.issuer, got, err, c.errHas)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("ConditionPrefix(%q) = %q, %v; want %q", c.issuer, got, err, c.want)
			}
		})
	}
}

func TestProviderARN(t *testing.T) {
	cases := []struct {
		name, account, issuer, want, errHas string
	}{
		{name: "host and path", account: "123456789012", issuer: "https://oidc.example.com/cluster/",
			want: "arn:aws:iam::123456789012:oidc-provider/oidc.example.com/cluster"},
		{name: "host only", account: "000000000000", issuer: "https://oidc.example.com",
			want: "arn:aws:iam::000000000000:oidc-provider/oidc.example.com"},
		{name: "short account refused", account: "12345", issuer: "https://oidc.example.com", errHas: "12-digit"},
		{name: "letters in account refused", account: "12345678901a", issuer: "https://oidc.example.com", errHas: "12-digit"},
		{name: "bad issuer refused", account: "123456789012", issuer: "http://oidc.example.com", errHas: "https"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ProviderARN(c.account, c.issuer)
			if c.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), c.errHas) {
					t.Fatalf("ProviderARN = %q, %v; want an error naming %q", got, err, c.errHas)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("ProviderARN = %q, %v; want %q", got, err, c.want)
			}
		})
	}
}
