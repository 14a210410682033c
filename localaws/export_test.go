package localaws

import "sort"

// OperationNames names the actions the server has an operation for, by
// service ("iam", "sts"), for the tests of what it does not serve.
func OperationNames() map[string]map[string]bool {
	names := map[string]map[string]bool{}
	for svc, ops := range map[string]map[string]operation{"iam": iamOperations(), "sts": stsOperations()} {
		names[svc] = map[string]bool{}
		for name := range ops {
			names[svc][name] = true
		}
	}
	return names
}

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
