package policy

// MatchAction reports whether an action pattern of a policy, such as
// "s3:Get*" or "ec2:Describe?nstances", matches an action or another
// pattern taken literally, as IAM matches actions: case-insensitively, with
// * for any run of characters and ? for one.
func MatchAction(pattern, action string) bool {
	p, err := compilePattern(pattern, true, false)
	if err != nil {
		return false
	}
	return p.match(action, nil, true)
}
