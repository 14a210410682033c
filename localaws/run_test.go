package localaws_test

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"leash.dev/leash/localaws"
	"leash.dev/leash/localaws/internal/store"
)

func TestListenCheck(t *testing.T) {
	tests := []struct {
		name    string
		listen  localaws.Listen
		wantErr string
	}{
		{"IPv4 loopback is allowed", localaws.Listen{Address: "127.0.0.1:4566"}, ""},
		{"any 127/8 address is loopback", localaws.Listen{Address: "127.0.0.2:4566"}, ""},
		{"IPv6 loopback is allowed", localaws.Listen{Address: "[::1]:4566"}, ""},
		{"localhost is allowed", localaws.Listen{Address: "localhost:0"}, ""},
		{"all interfaces are refused", localaws.Listen{Address: ":4566"}, "not a loopback address"},
		{"0.0.0.0 is refused", localaws.Listen{Address: "0.0.0.0:4566"}, "--allow-remote"},
		{"a LAN address is refused", localaws.Listen{Address: "192.168.1.10:4566"}, "not a loopback address"},
		{"a name other than localhost is refused, whatever it resolves to", localaws.Listen{Address: "devbox:4566"}, "not a loopback address"},
		{"--allow-remote permits all interfaces", localaws.Listen{Address: "0.0.0.0:4566", AllowRemote: true}, ""},
		{"a host without a port is refused", localaws.Listen{Address: "127.0.0.1"}, "not host:port"},
		{"an empty port is refused even with --allow-remote", localaws.Listen{Address: "127.0.0.1:", AllowRemote: true}, "no port"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.listen.Check()
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Check: %v", err)
				}
				return
			}
			var lerr *localaws.ListenError
			if !errors.As(err, &lerr) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Check: %v, want a ListenError with %q", err, tt.wantErr)
			}
		})
	}
}

func TestRunNamesTheAddressInUse(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = taken.Close() }()
	var out bytes.Buffer
	dir := filepath.Join(t.TempDir(), "data")
	err = localaws.Run(context.Background(), localaws.Config{DataDir: dir}, localaws.Listen{Address: taken.Addr().String()}, &out)
	var lerr *localaws.ListenError
	if !errors.As(err, &lerr) || !strings.Contains(err.Error(), "address already in use") || !strings.Contains(err.Error(), "another leash local") {
		t.Fatalf("Run on a taken port: %v, want a ListenError saying the address is in use", err)
	}
	if out.Len() > 0 {
		t.Errorf("Run printed a start message although it did not start:\n%s", out.String())
	}
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("Run created the data folder although it could not listen")
	}
}

func TestRunNamesTheDataFolderInUse(t *testing.T) {
	dir := t.TempDir()
	srv, err := localaws.Open(localaws.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = srv.Close() }()
	var out bytes.Buffer
	err = localaws.Run(context.Background(), localaws.Config{DataDir: dir}, localaws.Listen{Address: "127.0.0.1:0"}, &out)
	if !errors.Is(err, store.ErrInUse) || !strings.Contains(err.Error(), "give another data folder") {
		t.Fatalf("Run on a folder in use: %v, want ErrInUse and what to do", err)
	}
}
