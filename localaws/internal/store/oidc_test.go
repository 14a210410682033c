package store_test

import (
	"context"
	"reflect"
	"testing"

	"leash.dev/leash/localaws/internal/store"
)

func TestOIDCProviderLifecycle(t *testing.T) {
	s, c := openStore(t)
	const issuer = "https://oidc.example.com/cluster-1"
	thumb := "9e99a48a9960b14926bb7f3b02e22da2b0ab7280"
	var created store.OIDCProvider
	update(t, s, func(tx *store.Tx) error {
		var err error
		created, err = tx.CreateOIDCProvider(store.OIDCProvider{URL: issuer + "/", ClientIDs: []string{"sts.amazonaws.com", "sts.amazonaws.com"}, Thumbprints: []string{thumb}, Tags: store.Tags{{"k", "v"}}})
		return err
	})
	want := store.OIDCProvider{
		ARN: "arn:aws:iam::123456789012:oidc-provider/oidc.example.com/cluster-1", URL: issuer,
		ClientIDs: []string{"sts.amazonaws.com"}, Thumbprints: []string{thumb}, Tags: store.Tags{{"k", "v"}}, CreateDate: c.Now(),
	}
	if !reflect.DeepEqual(created, want) {
		t.Errorf("created =\n%+v\nwant\n%+v", created, want)
	}
	update(t, s, func(tx *store.Tx) error {
		// How AssumeRoleWithWebIdentity finds the provider of a token's issuer.
		p, err := tx.GetOIDCProvider(tx.Account().OIDCProviderARN(issuer))
		if err != nil {
			return err
		}
		if _, err := tx.AddClientIDToOIDCProvider(p.ARN, "leash"); err != nil {
			return err
		}
		if _, err := tx.RemoveClientIDFromOIDCProvider(p.ARN, "sts.amazonaws.com"); err != nil {
			return err
		}
		if _, err := tx.UpdateOIDCProviderThumbprint(p.ARN, nil); err != nil {
			return err
		}
		if _, err := tx.Tag(store.TaggedOIDCProvider, p.ARN, store.Tags{{"k2", "v2"}}); err != nil {
			return err
		}
		if _, err := tx.Untag(store.TaggedOIDCProvider, p.ARN, []string{"k"}); err != nil {
			return err
		}
		p, err = tx.GetOIDCProvider(p.ARN)
		if !reflect.DeepEqual(p.ClientIDs, []string{"leash"}) || len(p.Thumbprints) != 0 || !reflect.DeepEqual(p.Tags, store.Tags{{"k2", "v2"}}) {
			t.Errorf("after updates: %+v", p)
		}
		return err
	})
	tests := []struct {
		name string
		op   func(tx *store.Tx) error
		code store.Code
	}{
		{"an http issuer", func(tx *store.Tx) error {
			return ignore(tx.CreateOIDCProvider(store.OIDCProvider{URL: "http://insecure.example.com"}))
		}, store.InvalidInput},
		{"a thumbprint that is not 40 hex digits", func(tx *store.Tx) error {
			return ignore(tx.CreateOIDCProvider(store.OIDCProvider{URL: "https://x.example.com", Thumbprints: []string{"abc"}}))
		}, store.ValidationError},
		{"a provider of another account", func(tx *store.Tx) error {
			return ignore(tx.GetOIDCProvider("arn:aws:iam::999999999999:oidc-provider/oidc.example.com/cluster-1"))
		}, store.NoSuchEntity},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantCode(t, s.Update(context.Background(), tt.op), tt.code) })
	}
	update(t, s, func(tx *store.Tx) error {
		list, err := tx.ListOIDCProviders()
		if len(list) != 1 {
			t.Errorf("providers = %v", list)
		}
		if err != nil {
			return err
		}
		return tx.DeleteOIDCProvider(created.ARN)
	})
	wantCode(t, s.View(context.Background(), func(tx *store.Tx) error { return ignore(tx.GetOIDCProvider(created.ARN)) }), store.NoSuchEntity)
}
