package workload

// Receives says whether AWS credentials reach the pod (see credentials).
// Check passes over the pods that receive none; a report names them, so
// that a Secret the checks do not recognise is seen rather than trusted.
func Receives(s *Set, p Pod) bool { return len(credentials(s, p)) > 0 }

// Skipped are the sources of the pods that receive no AWS credentials.
func Skipped(s *Set) []string {
	var out []string
	for _, p := range s.Pods {
		if !Receives(s, p) {
			out = append(out, p.Source)
		}
	}
	return out
}
