package policy

// ServiceRuleActions lists every "service:Action" a service rule covers, for
// the external test that checks them against the catalog.
func ServiceRuleActions() []string {
	var out []string
	for _, r := range serviceRules {
		for _, a := range r.actions {
			out = append(out, r.service+":"+a)
		}
	}
	return out
}
