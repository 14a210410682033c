package query_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"leash.dev/leash/localaws/internal/query"
)

func TestList(t *testing.T) {
	var twelve []string
	var twelveBody []string
	for i := 1; i <= 12; i++ {
		twelve = append(twelve, fmt.Sprintf("c%d", i))
		twelveBody = append(twelveBody, fmt.Sprintf("ClientIDList.member.%d=c%d", i, i))
	}
	tests := []struct {
		name        string
		body        string
		want        []string
		wantMessage string // a MalformedInput error's message
	}{
		{name: "an absent list is nil", body: "Url=x", want: nil},
		{name: "the SDK's bare Name= is an empty list", body: "ClientIDList=", want: []string{}},
		{name: "members come in index order", body: "ClientIDList.member.2=b&ClientIDList.member.1=a", want: []string{"a", "b"}},
		{
			name: "member.10 follows member.9, not member.1",
			body: strings.Join(twelveBody, "&"), want: twelve,
		},
		{name: "empty members are kept", body: "ClientIDList.member.1=&ClientIDList.member.2=b", want: []string{"", "b"}},
		{name: "a bare Name= beside members is harmless", body: "ClientIDList=&ClientIDList.member.1=a", want: []string{"a"}},
		{
			name:        "a gap is refused, naming the missing member",
			body:        "ClientIDList.member.1=a&ClientIDList.member.3=c",
			wantMessage: "ClientIDList.member.2 is missing: number the members of ClientIDList 1, 2, 3... with no gaps",
		},
		{
			name:        "a list that does not start at 1 is missing member 1",
			body:        "ClientIDList.member.2=b",
			wantMessage: "ClientIDList.member.1 is missing: number the members of ClientIDList 1, 2, 3... with no gaps",
		},
		{
			name:        "index 0 is refused",
			body:        "ClientIDList.member.0=a",
			wantMessage: "'ClientIDList.member.0' has no valid member index: number the members of ClientIDList 1, 2, 3... without leading zeros",
		},
		{
			name:        "a leading zero is refused, so a member has one spelling",
			body:        "ClientIDList.member.1=a&ClientIDList.member.01=b",
			wantMessage: "'ClientIDList.member.01' has no valid member index: number the members of ClientIDList 1, 2, 3... without leading zeros",
		},
		{
			name:        "a non-numeric index is refused",
			body:        "ClientIDList.member.one=a",
			wantMessage: "'ClientIDList.member.one' has no valid member index: number the members of ClientIDList 1, 2, 3... without leading zeros",
		},
		{
			name:        "a huge lone index is a gap, not an allocation",
			body:        "ClientIDList.member.999999999=a",
			wantMessage: "ClientIDList.member.1 is missing: number the members of ClientIDList 1, 2, 3... with no gaps",
		},
		{
			name:        "an index of ten digits is refused",
			body:        "ClientIDList.member.1000000000=a",
			wantMessage: "'ClientIDList.member.1000000000' has no valid member index: number the members of ClientIDList 1, 2, 3... without leading zeros",
		},
		{
			name:        "EC2's flattened Name.N is refused with the form to use",
			body:        "ClientIDList.1=a",
			wantMessage: "'ClientIDList.1' is not a member of the list ClientIDList: send members as ClientIDList.member.N, numbered from 1",
		},
		{
			name:        "a list sent as a value is refused",
			body:        "ClientIDList=a",
			wantMessage: "ClientIDList is a list, not a value: send its members as ClientIDList.member.1, ClientIDList.member.2...",
		},
		{
			name:        "a member with a field is refused in a list of values",
			body:        "ClientIDList.member.1.Key=a",
			wantMessage: "'ClientIDList.member.1.Key' has a field: members of ClientIDList are plain values, sent as ClientIDList.member.N=value",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := mustParse(t, head+tt.body)
			got, err := req.List("ClientIDList")
			if tt.wantMessage != "" {
				checkError(t, err, 400, "MalformedInput", tt.wantMessage)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("List = %#v; want %#v", got, tt.want)
			}
		})
	}
}

func TestListDoesNotConfuseNamesThatShareAPrefix(t *testing.T) {
	req := mustParse(t, head+"TagKeys.member.1=a&Tag=x&TagKeysExtra.member.1=z")
	got, err := req.List("TagKeys")
	if err != nil || !reflect.DeepEqual(got, []string{"a"}) {
		t.Errorf("List(TagKeys) = %v, %v; want [a]", got, err)
	}
	if got, err := req.List("Tag"); err == nil {
		t.Errorf("List(Tag) = %v; want the value x refused as a list", got)
	}
}

func TestMembers(t *testing.T) {
	req := mustParse(t, head+
		"ProvidedContexts.member.2.ProviderArn=arn:b&ProvidedContexts.member.2.ContextAssertion=B&"+
		"ProvidedContexts.member.1.ProviderArn=arn:a&ProvidedContexts.member.1.ContextAssertion=A&"+
		"ContextEntries.member.1.ContextKeyName=aws:SourceIp&"+
		"ContextEntries.member.1.ContextKeyValues.member.1=10.0.0.1&ContextEntries.member.1.ContextKeyValues.member.2=10.0.0.2")

	t.Run("members read their own fields, in index order", func(t *testing.T) {
		var got []string
		for _, m := range members(t, req, "ProvidedContexts") {
			arn, _ := m.String("ProviderArn")
			assertion, _ := m.String("ContextAssertion")
			got = append(got, arn+"="+assertion)
		}
		if want := []string{"arn:a=A", "arn:b=B"}; !reflect.DeepEqual(got, want) {
			t.Errorf("members = %v; want %v", got, want)
		}
	})
	t.Run("a member reads its own nested list", func(t *testing.T) {
		m := members(t, req, "ContextEntries")[0]
		got, err := m.List("ContextKeyValues")
		if err != nil || !reflect.DeepEqual(got, []string{"10.0.0.1", "10.0.0.2"}) {
			t.Errorf("List(ContextKeyValues) = %v, %v", got, err)
		}
	})
	t.Run("a member without a field is refused", func(t *testing.T) {
		req := mustParse(t, head+"ProvidedContexts.member.1=x")
		_, err := req.Members("ProvidedContexts")
		checkError(t, err, 400, "MalformedInput",
			"'ProvidedContexts.member.1' has no field: members of ProvidedContexts are structures, sent as ProvidedContexts.member.N.Field")
	})
}

func TestTags(t *testing.T) {
	tests := []struct {
		name        string
		body        string
		want        []query.Tag
		wantCode    string
		wantMessage string
	}{
		{name: "absent tags are nil", body: "", want: nil},
		{name: "the SDK's bare Tags= is no tags", body: "Tags=", want: []query.Tag{}},
		{
			name: "keys and values pair by index, in index order",
			body: "Tags.member.2.Key=env&Tags.member.2.Value=prod&Tags.member.1.Value=&Tags.member.1.Key=team",
			want: []query.Tag{{Key: "team", Value: ""}, {Key: "env", Value: "prod"}},
		},
		{
			name: "a tag without a Value is IAM's must-not-be-null", body: "Tags.member.1.Key=team", wantCode: "ValidationError",
			wantMessage: "1 validation error detected: Value null at 'tags.1.member.value' failed to satisfy constraint: Member must not be null",
		},
		{
			name: "a tag without a Key is IAM's must-not-be-null", body: "Tags.member.1.Value=x", wantCode: "ValidationError",
			wantMessage: "1 validation error detected: Value null at 'tags.1.member.key' failed to satisfy constraint: Member must not be null",
		},
		{
			name: "an empty Key is too short", body: "Tags.member.1.Key=&Tags.member.1.Value=x", wantCode: "ValidationError",
			wantMessage: "1 validation error detected: Value '' at 'tags.1.member.key' failed to satisfy constraint: Member must have length greater than or equal to 1",
		},
		{
			name: "a gap is refused", body: "Tags.member.2.Key=a&Tags.member.2.Value=b", wantCode: "MalformedInput",
			wantMessage: "Tags.member.1 is missing: number the members of Tags 1, 2, 3... with no gaps",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := mustParse(t, head+tt.body).Tags("Tags")
			if tt.wantCode != "" {
				checkError(t, err, 400, tt.wantCode, tt.wantMessage)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Tags = %#v; want %#v", got, tt.want)
			}
		})
	}
}

func TestPolicyARNs(t *testing.T) {
	tests := []struct {
		name        string
		body        string
		want        []string
		wantMessage string
	}{
		{name: "absent is nil", body: "", want: nil},
		{
			name: "the lower-case arn field of each member, in order",
			body: "PolicyArns.member.2.arn=arn:aws:iam::aws:policy/B&PolicyArns.member.1.arn=arn:aws:iam::aws:policy/A",
			want: []string{"arn:aws:iam::aws:policy/A", "arn:aws:iam::aws:policy/B"},
		},
		{
			name:        "a capitalized Arn is not the field and leaves arn null",
			body:        "PolicyArns.member.1.Arn=arn:aws:iam::aws:policy/A",
			wantMessage: "1 validation error detected: Value null at 'policyArns.1.member.arn' failed to satisfy constraint: Member must not be null",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := mustParse(t, head+tt.body).PolicyARNs("PolicyArns")
			if tt.wantMessage != "" {
				checkError(t, err, 400, "ValidationError", tt.wantMessage)
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("PolicyARNs = %#v, %v; want %#v", got, err, tt.want)
			}
		})
	}
}
