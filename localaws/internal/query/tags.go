package query

// Tag is a key and a value, as IAM and STS send and return tags; the xml
// tags let a handler return the tags it read, as []Tag or OptionalList[Tag].
type Tag struct {
	Key   string `xml:"Key"`
	Value string `xml:"Value"`
}

// Tags returns the tags sent as Name.member.N.Key and Name.member.N.Value,
// such as CreateUser's and AssumeRole's Tags. Both fields are required, as
// IAM's and STS's models have it; a value may be empty. Duplicate keys are
// the handler's to refuse, with IAM's InvalidInput.
func (p Params) Tags(name string) ([]Tag, *Error) {
	members, err := p.Members(name)
	if err != nil || members == nil {
		return nil, err
	}
	tags := make([]Tag, len(members))
	for i, m := range members {
		key, err := m.Required("Key")
		if err != nil {
			return nil, err
		}
		value, ok := m.String("Value")
		if !ok {
			return nil, m.Invalid("Value", "Member must not be null")
		}
		tags[i] = Tag{Key: key, Value: value}
	}
	return tags, nil
}

// PolicyARNs returns STS's managed session policies, sent as
// PolicyArns.member.N.arn (the field is lower-case on the wire).
func (p Params) PolicyARNs(name string) ([]string, *Error) {
	members, err := p.Members(name)
	if err != nil || members == nil {
		return nil, err
	}
	arns := make([]string, len(members))
	for i, m := range members {
		arn, err := m.Required("arn")
		if err != nil {
			return nil, err
		}
		arns[i] = arn
	}
	return arns, nil
}
