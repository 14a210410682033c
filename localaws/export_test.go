package localaws

import "sort"

// ServedOperations names every operation s serves, as service:Action:
// the IAM and STS operations and CloudTrail's LookupEvents.
func ServedOperations(s *Server) []string {
	names := []string{"cloudtrail:LookupEvents"}
	for service, ops := range s.ops {
		for action := range ops {
			names = append(names, service+":"+action)
		}
	}
	sort.Strings(names)
	return names
}
