package analyze

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
)

// The escalation catalogue is data: escalation_paths.json lists the
// resource types the paths' actions are authorized against, the paths, and
// the actions that widen a principal when allowed on its own ARN. It is
// read once, when the package loads, and checked then, so that adding a
// path is an edit of the file alone and a mistake in it fails every test
// of the package with a message naming the entry and the field.

//go:embed escalation_paths.json
var escalationPathsJSON []byte

// escCatalogue is the catalogue Escalation reads.
var escCatalogue = mustParseCatalogue(escalationPathsJSON)

// The resource types the analysis names itself, besides those the paths
// reach through their actions.
var (
	resRole  = escCatalogue.kinds["role"]
	resUser  = escCatalogue.kinds["user"]
	resGroup = escCatalogue.kinds["group"]
	resAny   = escCatalogue.kinds["any"]
)

// requiredKinds are the resource types the analysis names (above).
var requiredKinds = []string{"role", "user", "group", "any"}

// resourceKind is the type of resource an action is authorized against,
// enough to build ARNs of that type.
type resourceKind struct {
	noun    string // "role", for messages
	service string // the ARN's service part
	region  bool   // regional ARNs carry a region
	prefix  string // the resource part before the name: "role/"
	// anyOnly: the action supports no resource-level permissions, so only
	// Resource "*" grants it; it is asked with "*".
	anyOnly bool
	// sample is the representative name after prefix when the name has
	// parts of its own (an Auto Scaling ARN's ID and name); "" means
	// escFiller.
	sample string
}

// escStep is one thing a path needs: any one of its actions.
type escStep struct {
	actions []string
	// optional steps are reported when allowed but do not decide whether
	// the path is open; missing is said when one is not allowed.
	optional bool
	missing  string
}

func one(actions ...string) escStep { return escStep{actions: actions} }

// escPath is one known privilege-escalation path.
type escPath struct {
	id string
	// passTo is the service principal an iam:PassRole step passes the role
	// to, the value of iam:PassedToService.
	passTo string
	steps  []escStep
	// pivot is the step whose resources decide the severity: the resources
	// whose permissions the path reaches.
	pivot int
	// effect says what the path gives, after "lets the principal ".
	effect string
	fix    string
}

// selfAction is an action that widens the principal itself when allowed on
// its own ARN.
type selfAction struct {
	action   string
	severity Severity
	effect   string
}

// catalogue is escalation_paths.json as the analysis reads it.
type catalogue struct {
	// kinds are the resource types by name.
	kinds map[string]resourceKind
	// actionKinds maps each action the paths ask about (lower-cased) to
	// the resource type it is authorized against.
	actionKinds map[string]resourceKind
	// paths are in the order of their IDs.
	paths []escPath
	// roleSelf and userSelf are the actions that widen a role or a user
	// allowed them on its own ARN.
	roleSelf, userSelf []selfAction
}

// catalogueFile is the layout of escalation_paths.json.
type catalogueFile struct {
	ResourceKinds []kindEntry `json:"resourceKinds"`
	// Paths are in the order of their IDs, LEASH-ESC-001 first, with no
	// gap. IDs are stable: a new path takes the next number.
	Paths       []pathEntry `json:"paths"`
	SelfActions struct {
		Role []selfEntry `json:"role"`
		User []selfEntry `json:"user"`
	} `json:"selfActions"`
}

// kindEntry is a resource type and the actions authorized against it.
type kindEntry struct {
	Name     string `json:"name"`
	Noun     string `json:"noun"`
	Service  string `json:"service"`
	Regional bool   `json:"regional"`
	Prefix   string `json:"prefix"`
	AnyOnly  bool   `json:"anyOnly"`
	// Sample is the representative name after the prefix when the name
	// has parts of its own; each * in it stands for escFiller.
	Sample string `json:"sample"`
	// Note says why the type is written as it is, for the reader of the
	// file; the analysis does not read it.
	Note    string   `json:"note"`
	Actions []string `json:"actions"`
}

// pathEntry is one path; see escPath.
type pathEntry struct {
	ID     string      `json:"id"`
	PassTo string      `json:"passTo"`
	Pivot  int         `json:"pivot"`
	Steps  []stepEntry `json:"steps"`
	Effect string      `json:"effect"`
	Fix    string      `json:"fix"`
}

// stepEntry is one step; see escStep.
type stepEntry struct {
	AnyOf    []string `json:"anyOf"`
	Optional bool     `json:"optional"`
	Missing  string   `json:"missing"`
}

// selfEntry is one self-widening action; Severity is a name ParseSeverity
// reads.
type selfEntry struct {
	Action   string `json:"action"`
	Severity string `json:"severity"`
	Effect   string `json:"effect"`
}

func mustParseCatalogue(b []byte) *catalogue {
	c, err := parseCatalogue(b)
	if err != nil {
		panic("analyze: escalation_paths.json: " + err.Error())
	}
	return c
}

// parseCatalogue reads and checks the catalogue: every field the analysis
// relies on is present, every action a path asks about has a resource
// type, and the IDs run in order.
func parseCatalogue(b []byte) (*catalogue, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var f catalogueFile
	if err := dec.Decode(&f); err != nil {
		return nil, err
	}
	c := &catalogue{kinds: map[string]resourceKind{}, actionKinds: map[string]resourceKind{}}
	for i, k := range f.ResourceKinds {
		where := fmt.Sprintf("resourceKinds[%d] (%q)", i, k.Name)
		switch {
		case k.Name == "":
			return nil, fmt.Errorf("%s: name is empty: give the type a name", where)
		case k.Noun == "":
			return nil, fmt.Errorf("%s: noun is empty: say what the resource is called in messages", where)
		case !k.AnyOnly && (k.Service == "" || k.Prefix == ""):
			return nil, fmt.Errorf("%s: service and prefix build the type's ARNs: give both, or set anyOnly", where)
		}
		if _, dup := c.kinds[k.Name]; dup {
			return nil, fmt.Errorf("%s: name is used twice: give each type its own", where)
		}
		kind := resourceKind{noun: k.Noun, service: k.Service, region: k.Regional, prefix: k.Prefix, anyOnly: k.AnyOnly,
			sample: strings.ReplaceAll(k.Sample, "*", escFiller)}
		c.kinds[k.Name] = kind
		for _, a := range k.Actions {
			la := strings.ToLower(a)
			if _, dup := c.actionKinds[la]; dup {
				return nil, fmt.Errorf("%s: action %s is listed under another type too: keep it under the type it is authorized against", where, a)
			}
			c.actionKinds[la] = kind
		}
	}
	for _, n := range requiredKinds {
		if _, ok := c.kinds[n]; !ok {
			return nil, fmt.Errorf("resourceKinds: no type named %q, which the analysis names: add it", n)
		}
	}
	for i, p := range f.Paths {
		path, err := c.parsePath(i, p)
		if err != nil {
			return nil, err
		}
		c.paths = append(c.paths, path)
	}
	var err error
	if c.roleSelf, err = parseSelf("selfActions.role", f.SelfActions.Role); err != nil {
		return nil, err
	}
	if c.userSelf, err = parseSelf("selfActions.user", f.SelfActions.User); err != nil {
		return nil, err
	}
	return c, nil
}

// parsePath checks the path at index i and converts it.
func (c *catalogue) parsePath(i int, p pathEntry) (escPath, error) {
	where := fmt.Sprintf("paths[%d] (%q)", i, p.ID)
	if want := fmt.Sprintf("LEASH-ESC-%03d", i+1); p.ID != want {
		return escPath{}, fmt.Errorf("%s: id should be %s: paths run in the order of their IDs with no gap", where, want)
	}
	if p.Effect == "" || p.Fix == "" {
		return escPath{}, fmt.Errorf("%s: effect and fix are both said in every finding: give both", where)
	}
	if p.Pivot < 0 || p.Pivot >= len(p.Steps) || p.Steps[p.Pivot].Optional {
		return escPath{}, fmt.Errorf("%s: pivot %d is not a required step: give the index of the step whose resources the path reaches", where, p.Pivot)
	}
	out := escPath{id: p.ID, passTo: p.PassTo, pivot: p.Pivot, effect: p.Effect, fix: p.Fix}
	passes := false
	for j, s := range p.Steps {
		switch {
		case len(s.AnyOf) == 0:
			return escPath{}, fmt.Errorf("%s: steps[%d].anyOf is empty: list the actions any one of which takes the step", where, j)
		case s.Optional != (s.Missing != ""):
			return escPath{}, fmt.Errorf("%s: steps[%d]: an optional step, and only one, says in missing why the path is open without it", where, j)
		}
		for _, a := range s.AnyOf {
			if _, ok := c.actionKinds[strings.ToLower(a)]; !ok {
				return escPath{}, fmt.Errorf("%s: steps[%d]: action %s has no resource type: add it to the actions of one in resourceKinds", where, j, a)
			}
		}
		passes = passes || len(s.AnyOf) == 1 && s.AnyOf[0] == "iam:PassRole"
		out.steps = append(out.steps, escStep{actions: s.AnyOf, optional: s.Optional, missing: s.Missing})
	}
	if passes != (p.PassTo != "") {
		return escPath{}, fmt.Errorf("%s: a path with an iam:PassRole step, and only one, names in passTo the service the role is passed to", where)
	}
	return out, nil
}

// parseSelf checks and converts one list of self-widening actions.
func parseSelf(where string, entries []selfEntry) ([]selfAction, error) {
	if len(entries) == 0 {
		return nil, fmt.Errorf("%s is empty: list the actions that widen the principal", where)
	}
	var out []selfAction
	for i, e := range entries {
		sev, err := ParseSeverity(e.Severity)
		if err != nil {
			return nil, fmt.Errorf("%s[%d] (%s): %w", where, i, e.Action, err)
		}
		if e.Action == "" || e.Effect == "" {
			return nil, fmt.Errorf("%s[%d]: action and effect are both said in every finding: give both", where, i)
		}
		out = append(out, selfAction{action: e.Action, severity: sev, effect: e.Effect})
	}
	return out, nil
}
