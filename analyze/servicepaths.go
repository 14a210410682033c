package analyze

// ServicePath is a known way to act as a role by passing it to a service
// (iam:PassRole with iam:PassedToService = Service) and having the service
// run code of the caller's choosing with the role's credentials. Account
// questions (who-can) use it to draw an edge from a principal to every role
// that trusts Service and that the principal may pass.
type ServicePath struct {
	// ID is the escalation finding's ID (LEASH-ESC-014, ...).
	ID string
	// Service is the service principal the role is passed to and must
	// trust, such as ec2.amazonaws.com.
	Service string
	// Steps are the actions needed besides iam:PassRole: every step, any
	// one action of each.
	Steps [][]string
	// Effect says what the path gives, after "lets the principal ".
	Effect string
}

// ServicePaths returns the escalation paths that pass a role to a service,
// in ID order. The slices are fresh copies.
func ServicePaths() []ServicePath {
	var out []ServicePath
	for _, p := range escCatalogue.paths {
		if p.passTo == "" {
			continue
		}
		sp := ServicePath{ID: p.id, Service: p.passTo, Effect: p.effect}
		for _, st := range p.steps {
			if st.optional || len(st.actions) == 1 && st.actions[0] == "iam:PassRole" {
				continue
			}
			sp.Steps = append(sp.Steps, append([]string(nil), st.actions...))
		}
		out = append(out, sp)
	}
	return out
}
