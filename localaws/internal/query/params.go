package query

import (
	"errors"
	"iter"
	"strconv"
	"strings"
)

// Params are the parameters of a request, or of one member of a list of
// structures (see Params.Members). Names are the wire names, such as
// UserName or Key; the accessors prefix them with the member's path.
type Params struct {
	values map[string]string
	// names are the keys of values, sorted, so that the keys of one list
	// are a range found by binary search: reading a list costs its own
	// keys, not every parameter of the request.
	names []string
	// prefix is the wire path of the member: "" for the request,
	// "Tags.member.1." for a member.
	prefix string
	// path is the member's path as AWS's validation messages spell it:
	// "" for the request, "tags.1.member." for a member.
	path string
}

// String returns the parameter's value and whether it was sent. An empty
// value was sent.
func (p Params) String(name string) (string, bool) {
	v, ok := p.values[p.prefix+name]
	return v, ok
}

// Required returns a parameter the operation cannot do without. An absent
// or empty one is a ValidationError, as IAM and STS answer.
func (p Params) Required(name string) (string, *Error) {
	v, ok := p.String(name)
	switch {
	case !ok:
		return "", p.Invalid(name, "Member must not be null")
	case v == "":
		return "", p.Invalid(name, "Member must have length greater than or equal to 1")
	}
	return v, nil
}

// Int returns an integer parameter, whether it was sent, and an error when
// it is not a decimal integer (MalformedInput) or lies outside [min, max]
// (ValidationError).
func (p Params) Int(name string, min, max int) (int, bool, *Error) {
	v, ok := p.String(name)
	if !ok {
		return 0, false, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	switch {
	case errors.Is(err, strconv.ErrRange) && strings.HasPrefix(v, "-"), err == nil && n < int64(min):
		return 0, true, p.Invalid(name, "Member must have value greater than or equal to "+strconv.Itoa(min))
	case errors.Is(err, strconv.ErrRange), err == nil && n > int64(max):
		return 0, true, p.Invalid(name, "Member must have value less than or equal to "+strconv.Itoa(max))
	case err != nil:
		return 0, true, MalformedInput(p.prefix + name + " is " + quote(v) + ", not an integer: send a decimal integer such as 100")
	}
	return int(n), true, nil
}

// Bool returns a boolean parameter, whether it was sent, and a
// MalformedInput error when it is neither true nor false (in any case).
func (p Params) Bool(name string) (bool, bool, *Error) {
	v, ok := p.String(name)
	switch {
	case !ok:
		return false, false, nil
	case strings.EqualFold(v, "true"):
		return true, true, nil
	case strings.EqualFold(v, "false"):
		return false, true, nil
	}
	return false, true, MalformedInput(p.prefix + name + " is " + quote(v) + ", not a boolean: send true or false")
}

// Invalid returns the ValidationError IAM and STS give for a parameter
// that breaks a constraint, naming its value (or null when absent) and its
// path, such as "1 validation error detected: Value 'x' at 'tags.1.member.key'
// failed to satisfy constraint: Member must have length less than or equal
// to 128".
func (p Params) Invalid(name, constraint string) *Error {
	value := "null"
	if v, ok := p.String(name); ok {
		value = "'" + v + "'"
	}
	return ValidationError("1 validation error detected: Value " + value + " at '" + p.path + lowerFirst(name) +
		"' failed to satisfy constraint: " + constraint)
}

// lowerFirst spells a wire name as AWS's validation messages do: UserName
// becomes userName.
func lowerFirst(name string) string {
	if name == "" || name[0] < 'A' || name[0] > 'Z' {
		return name
	}
	return string(name[0]+'a'-'A') + name[1:]
}

// All yields every parameter of the request, name and value, in name
// order, for the audit log.
func (p Params) All() iter.Seq2[string, string] {
	return func(yield func(string, string) bool) {
		for _, name := range p.names {
			if !yield(name, p.values[name]) {
				return
			}
		}
	}
}
