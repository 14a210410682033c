package analyze

import (
	"bytes"
	"os"
	"strconv"

	yaml "go.yaml.in/yaml/v3"
)

// requestEntryFields maps a CredentialsRequest statement entry's fields to
// the names of the IAM statement made from it, which the findings' paths use.
var requestEntryFields = map[string]string{
	"effect":          "Effect",
	"action":          "Action",
	"resource":        "Resource",
	"policyCondition": "Condition",
}

// readRequestLines reads a manifest file of CredentialsRequests and knows,
// for each request (by "namespace/name", "default" when the manifest gives
// none, as leash reads it), the line of each part of its requested policy:
// Statement[i] is spec.providerSpec.statementEntries[i], its Action[j] the
// entry's action[j], its Condition the entry's policyCondition. A path the
// manifest does not hold is on the request's first line.
func readRequestLines(path string) map[string]*jsonLines {
	out := map[string]*jsonLines{}
	data, err := os.ReadFile(path)
	if err != nil {
		return out
	}
	var file yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		file = yaml.Node{}
		if dec.Decode(&file) != nil {
			return out // the end, or a document leash itself refused to read
		}
		if len(file.Content) == 0 || file.Content[0].Kind != yaml.MappingNode {
			continue
		}
		doc := file.Content[0]
		if scalar(child(doc, "kind")) != "CredentialsRequest" {
			continue
		}
		meta := child(doc, "metadata")
		ns := scalar(child(meta, "namespace"))
		if ns == "" {
			ns = "default"
		}
		l := &jsonLines{at: map[string]int{}, fallback: doc.Line}
		out[ns+"/"+scalar(child(meta, "name"))] = l
		entries := child(child(child(doc, "spec"), "providerSpec"), "statementEntries")
		if entries == nil || entries.Kind != yaml.SequenceNode {
			continue
		}
		l.at["Statement"] = entries.Line
		for i, e := range entries.Content {
			st := "Statement[" + strconv.Itoa(i) + "]"
			l.at[st] = e.Line
			if e.Kind != yaml.MappingNode {
				continue
			}
			for k := 0; k+1 < len(e.Content); k += 2 {
				name, ok := requestEntryFields[e.Content[k].Value]
				if !ok {
					continue
				}
				recordYAML(l, st+"."+name, e.Content[k+1])
			}
		}
	}
}

// recordYAML records the line of a value and of everything under it.
func recordYAML(l *jsonLines, path string, n *yaml.Node) {
	l.at[path] = n.Line
	switch n.Kind {
	case yaml.SequenceNode:
		for i, c := range n.Content {
			recordYAML(l, path+"["+strconv.Itoa(i)+"]", c)
		}
	case yaml.MappingNode:
		for k := 0; k+1 < len(n.Content); k += 2 {
			recordYAML(l, path+"."+n.Content[k].Value, n.Content[k+1])
		}
	}
}

// child is the value of key in a mapping node, or nil.
func child(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for k := 0; k+1 < len(n.Content); k += 2 {
		if n.Content[k].Value == key {
			return n.Content[k+1]
		}
	}
	return nil
}

func scalar(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return n.Value
}
