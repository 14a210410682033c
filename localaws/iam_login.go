package localaws

import (
	"net/http"
	"unicode"
	"unicode/utf8"

	"leash.dev/leash/localaws/internal/query"
	"leash.dev/leash/localaws/internal/store"
)

type loginProfileShape struct {
	UserName              string          `xml:"UserName"`
	CreateDate            query.Timestamp `xml:"CreateDate"`
	PasswordResetRequired bool            `xml:"PasswordResetRequired"`
}

type loginProfileResult struct {
	LoginProfile loginProfileShape `xml:"LoginProfile"`
}

func loginProfileOf(userName string, p store.LoginProfile) loginProfileResult {
	return loginProfileResult{loginProfileShape{UserName: userName, CreateDate: query.Timestamp(p.CreateDate), PasswordResetRequired: p.PasswordResetRequired}}
}

// Console passwords are checked and forgotten: leash local never signs
// anyone in to a console, so it keeps no password, not even hashed (see
// store.LoginProfile), and no message ever quotes one.
func iamLoginProfileOperations(ops map[string]operation) {
	ops["CreateLoginProfile"] = operation{
		target: onUserOrCaller(),
		run: func(c *call) (any, error) {
			name, err := c.userNameParam()
			if err != nil {
				return nil, err
			}
			if err := checkPassword(c, true); err != nil {
				return nil, err
			}
			reset, err := c.flag("PasswordResetRequired")
			if err != nil {
				return nil, err
			}
			u, err := c.tx.CreateLoginProfile(name, reset)
			if err != nil {
				return nil, err
			}
			return loginProfileOf(u.Name, *u.LoginProfile), nil
		},
	}
	ops["GetLoginProfile"] = operation{
		readOnly: true,
		target:   onUserOrCaller(),
		run: func(c *call) (any, error) {
			name, err := c.userNameParam()
			if err != nil {
				return nil, err
			}
			u, err := c.tx.GetUser(name)
			if err != nil {
				return nil, err
			}
			p, err := c.tx.GetLoginProfile(name)
			if err != nil {
				return nil, err
			}
			return loginProfileOf(u.Name, p), nil
		},
	}
	ops["UpdateLoginProfile"] = operation{
		target: onUserOrCaller(),
		run: func(c *call) (any, error) {
			name, err := c.userNameParam()
			if err != nil {
				return nil, err
			}
			if err := checkPassword(c, false); err != nil {
				return nil, err
			}
			reset, sent, qerr := c.q.Bool("PasswordResetRequired")
			if qerr != nil {
				return nil, qerr
			}
			p, err := c.tx.GetLoginProfile(name)
			if err != nil {
				return nil, err
			}
			if !sent {
				reset = p.PasswordResetRequired
			}
			_, err = c.tx.UpdateLoginProfile(name, reset)
			return nil, err
		},
	}
	ops["DeleteLoginProfile"] = operation{
		target: onUserOrCaller(),
		run: func(c *call) (any, error) {
			name, err := c.userNameParam()
			if err != nil {
				return nil, err
			}
			_, err = c.tx.DeleteLoginProfile(name)
			return nil, err
		},
	}
}

// maxPasswordLen is the longest Password IAM's API takes.
const maxPasswordLen = 128

// checkPassword checks the Password parameter against the API's constraints
// and the password policy IAM applies to an account that has not set its
// own: at least 8 characters, of at least three of the four kinds
// (uppercase, lowercase, digits, symbols). Its messages say which rule
// failed and never quote the password, unlike Params.Invalid.
func checkPassword(c *call, required bool) error {
	pw, ok := c.q.String("Password")
	switch {
	case !ok && !required:
		return nil
	case !ok:
		return query.ValidationError("1 validation error detected: Value at 'password' failed to satisfy constraint: Member must not be null")
	case pw == "":
		return query.ValidationError("1 validation error detected: Value at 'password' failed to satisfy constraint: Member must have length greater than or equal to 1")
	case utf8.RuneCountInString(pw) > maxPasswordLen:
		return query.ValidationError("1 validation error detected: Value at 'password' failed to satisfy constraint: Member must have length less than or equal to 128")
	}
	var upper, lower, digit, symbol bool
	for _, r := range pw {
		switch {
		case r < 0x20 && r != '\t' && r != '\n' && r != '\r', r > 0xFF:
			return query.ValidationError("1 validation error detected: Value at 'password' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\u0009\\u000A\\u000D\\u0020-\\u00FF]+")
		case unicode.IsUpper(r):
			upper = true
		case unicode.IsLower(r):
			lower = true
		case unicode.IsDigit(r):
			digit = true
		default:
			symbol = true
		}
	}
	kinds := 0
	for _, has := range []bool{upper, lower, digit, symbol} {
		if has {
			kinds++
		}
	}
	if utf8.RuneCountInString(pw) < 8 || kinds < 3 {
		return query.NewError(http.StatusBadRequest, "PasswordPolicyViolation", "Password does not conform to the account password policy: it needs at least 8 characters, of at least three kinds among uppercase letters, lowercase letters, numbers and symbols.")
	}
	return nil
}
