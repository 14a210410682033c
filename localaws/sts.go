package localaws

// stsOperations are the STS actions leash local serves.
func stsOperations() map[string]operation {
	ops := map[string]operation{}
	ops["GetCallerIdentity"] = operation{
		readOnly: true,
		// GetCallerIdentity needs no permission; the engine allows it even
		// under an explicit deny, as AWS does.
		target: func(c *call) (target, error) { return target{resource: "*"}, nil },
		run: func(c *call) (any, error) {
			return struct {
				UserID  string `xml:"UserId"`
				Account string `xml:"Account"`
				Arn     string `xml:"Arn"`
			}{c.caller.UserID, c.caller.Account, c.caller.ARN}, nil
		},
	}
	return ops
}
