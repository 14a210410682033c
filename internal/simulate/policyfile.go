package simulate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"leash.dev/leash/internal/inputerr"
	"leash.dev/leash/policy"
)

// readPolicyFile reads one policy file given to flag and checks it as each of
// kinds, so that a bad document is reported against its file and JSON path
// rather than against the request that embeds it.
func readPolicyFile(flag, file string, kinds ...policy.Kind) (json.RawMessage, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, &inputerr.Error{Source: file, Msg: readFailure(flag, err)}
	}
	for _, kind := range kinds {
		if err := checkDocument(data, flag, file, kind); err != nil {
			return nil, err
		}
	}
	return json.RawMessage(data), nil
}

// checkDocument parses and compiles one document given to flag alone.
// Compiling catches what parsing cannot, such as a NumericLessThan value
// that is not a number.
func checkDocument(data []byte, flag, file string, kind policy.Kind) error {
	doc, err := policy.Parse(data, kind)
	if err != nil {
		var pe *policy.ParseError
		if errors.As(err, &pe) {
			return &inputerr.Error{Source: file, Field: pe.Path, Msg: fmt.Sprintf("%s (given to %s)", pe.Msg, flag)}
		}
		return &inputerr.Error{Source: file, Msg: fmt.Sprintf("%v (given to %s)", err, flag)}
	}
	var set policy.Set
	set.Add(kind, policy.Named{Name: policyName(file), Document: doc})
	if _, err := policy.Compile(set); err != nil {
		return &inputerr.Error{Source: file, Msg: fmt.Sprintf("%v (given to %s)", err, flag)}
	}
	return nil
}

// readFailure says why a file could not be read without the Go error's
// repetition of the path, which the caller already names.
func readFailure(flag string, err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Sprintf("no such file (given to %s); check the path", flag)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Sprintf("permission denied (given to %s); make the file readable", flag)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Sprintf("cannot read (given to %s): %v", flag, err)
}

// policyName names a policy after its file: "policies/ccm.json" is "ccm".
func policyName(file string) string {
	base := filepath.Base(file)
	return strings.TrimSuffix(base, filepath.Ext(base))
}
