package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"leash.dev/leash/internal/inputerr"
	"leash.dev/leash/internal/operator"
	"leash.dev/leash/policy"
)

// namedPolicy is a policy to review, with where it came from.
type namedPolicy struct {
	Name string
	Doc  *policy.Document
}

// loadPolicies reads the review commands' arguments: policy documents
// (*.json), CredentialsRequest manifests (*.yaml, *.yml: each request's
// statementEntries), or folders of either. In a folder, JSON files that are
// not policy documents (no Statement) are skipped; named on the command line
// they are an error.
func loadPolicies(args []string) ([]namedPolicy, error) {
	var out []namedPolicy
	err := eachFile(args, func(path string, named bool) error {
		ps, err := loadFile(path, named)
		out = append(out, ps...)
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, &inputerr.Error{Msg: fmt.Sprintf("%s: no policy document (*.json) or CredentialsRequest (*.yaml) found", strings.Join(args, ", "))}
	}
	return out, nil
}

// eachFile calls fn for every file the review commands' arguments name: a
// file as given (named), and the files under a folder in path order
// (node_modules left out).
func eachFile(args []string, fn func(path string, named bool) error) error {
	for _, arg := range args {
		info, err := os.Stat(arg)
		if err != nil {
			return &inputerr.Error{Msg: fmt.Sprintf("%s: %v", arg, errors.Unwrap(err))}
		}
		if !info.IsDir() {
			if err := fn(arg, true); err != nil {
				return err
			}
			continue
		}
		var files []string
		err = filepath.WalkDir(arg, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			if !d.IsDir() {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			return err
		}
		sort.Strings(files)
		for _, f := range files {
			if err := fn(f, false); err != nil {
				return err
			}
		}
	}
	return nil
}

func loadFile(path string, named bool) ([]namedPolicy, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json":
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		var head map[string]json.RawMessage
		if (json.Unmarshal(data, &head) != nil || head["Statement"] == nil) && !named {
			return nil, nil // some other JSON file in a folder, such as simulate's requests
		}
		doc, err := policy.Parse(data, documentKind(head))
		if err != nil {
			return nil, &inputerr.Error{Msg: fmt.Sprintf("%s: %v", path, err)}
		}
		return []namedPolicy{{Name: path, Doc: doc}}, nil
	case ".yaml", ".yml":
		crs, err := operator.ReadRequests(path)
		var in *inputerr.Error
		if errors.As(err, &in) && strings.Contains(in.Msg, "holds no CredentialsRequest") && !named {
			return nil, nil // a workload manifest beside the requests
		}
		if err != nil {
			return nil, err
		}
		var out []namedPolicy
		for _, cr := range crs {
			doc, err := operator.RequestedPolicy(cr)
			if err != nil {
				return nil, &inputerr.Error{Msg: fmt.Sprintf("%s: CredentialsRequest %s/%s: %v", path, cr.Namespace, cr.Name, err)}
			}
			out = append(out, namedPolicy{Name: path + "#" + cr.Namespace + "/" + cr.Name, Doc: doc})
		}
		return out, nil
	}
	if named {
		return nil, &inputerr.Error{Msg: fmt.Sprintf("%s: give a policy document (.json) or CredentialsRequest manifests (.yaml)", path)}
	}
	return nil, nil
}

// documentKind is Trust for a document whose statements name principals
// and no resources (a role's trust policy), Resource when they name both,
// else Identity.
func documentKind(head map[string]json.RawMessage) policy.Kind {
	var statements []map[string]json.RawMessage
	if err := json.Unmarshal(head["Statement"], &statements); err != nil {
		var one map[string]json.RawMessage
		if json.Unmarshal(head["Statement"], &one) != nil {
			return policy.Identity
		}
		statements = append(statements, one)
	}
	kind := policy.Identity
	for _, st := range statements {
		if st["Principal"] == nil && st["NotPrincipal"] == nil {
			continue
		}
		if st["Resource"] != nil || st["NotResource"] != nil {
			return policy.Resource
		}
		kind = policy.Trust
	}
	return kind
}
