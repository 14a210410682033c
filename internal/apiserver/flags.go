package apiserver

import (
	"fmt"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// setFlags sets kube-apiserver flags written as a person passes them,
// "--name=value", such as the ones leash sts create-issuer prints. A name
// given more than once keeps every value (--service-account-key-file).
func setFlags(args *envtest.Arguments, flags []string) error {
	values := map[string][]string{}
	var order []string
	for _, f := range flags {
		name, value, ok := strings.Cut(strings.TrimPrefix(f, "--"), "=")
		if !ok || !strings.HasPrefix(f, "--") {
			return fmt.Errorf("flag %q is not --name=value", f)
		}
		if _, seen := values[name]; !seen {
			order = append(order, name)
		}
		values[name] = append(values[name], value)
	}
	for _, name := range order {
		args.Set(name, values[name]...)
	}
	return nil
}

// Restart stops the API server and starts it again on the same etcd, with
// flags set as Options.Flags sets them (such as the ones leash sts
// rotate-key printed): the objects stay, and Config and Client are
// replaced, since the restarted server has new serving certificates.
func (s *Server) Restart(t testing.TB, flags []string) {
	t.Helper()
	api := s.Env.ControlPlane.GetAPIServer()
	if err := api.Stop(); err != nil {
		t.Fatalf("stopping the API server: %v", err)
	}
	if err := setFlags(api.Configure(), flags); err != nil {
		t.Fatal(err)
	}
	if err := api.Start(); err != nil {
		t.Fatalf("restarting the API server: %v", err)
	}
	user, err := s.Env.ControlPlane.AddUser(envtest.User{Name: "admin", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		t.Fatalf("admin of the restarted API server: %v", err)
	}
	s.Config = user.Config()
	c, err := client.New(s.Config, client.Options{Scheme: s.scheme})
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	s.Client = c
}
