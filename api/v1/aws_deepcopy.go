package v1

// Hand-written copies: controller-gen cannot copy values of type any.

// DeepCopyInto copies c into out, including nested lists and maps.
func (c IAMPolicyCondition) DeepCopyInto(out *IAMPolicyCondition) {
	if c == nil {
		*out = nil
		return
	}
	m := make(IAMPolicyCondition, len(c))
	for op, kv := range c {
		m[op] = kv.DeepCopy()
	}
	*out = m
}

// DeepCopy returns a copy of c that shares no memory with it.
func (c IAMPolicyCondition) DeepCopy() IAMPolicyCondition {
	var out IAMPolicyCondition
	c.DeepCopyInto(&out)
	return out
}

// DeepCopyInto copies kv into out, including nested lists and maps.
func (kv IAMPolicyConditionKeyValue) DeepCopyInto(out *IAMPolicyConditionKeyValue) {
	if kv == nil {
		*out = nil
		return
	}
	m := make(IAMPolicyConditionKeyValue, len(kv))
	for k, v := range kv {
		m[k] = copyJSONValue(v)
	}
	*out = m
}

// DeepCopy returns a copy of kv that shares no memory with it.
func (kv IAMPolicyConditionKeyValue) DeepCopy() IAMPolicyConditionKeyValue {
	var out IAMPolicyConditionKeyValue
	kv.DeepCopyInto(&out)
	return out
}

// copyJSONValue copies a value as produced by encoding/json (or set by hand
// with the same shapes); scalars are immutable and returned as they are.
func copyJSONValue(v any) any {
	switch t := v.(type) {
	case []any:
		c := make([]any, len(t))
		for i := range t {
			c[i] = copyJSONValue(t[i])
		}
		return c
	case []string:
		return append([]string(nil), t...)
	case map[string]any:
		c := make(map[string]any, len(t))
		for k, e := range t {
			c[k] = copyJSONValue(e)
		}
		return c
	default:
		return v
	}
}
