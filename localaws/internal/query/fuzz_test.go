package query_test

import (
	"encoding/xml"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"leash.dev/leash/localaws/internal/query"
)

// FuzzParse feeds the parser random URL queries and bodies. Properties:
// nothing panics; every list an accessor accepts is contiguous from 1 and
// in index order, holding exactly the members that were sent; and the
// errors and results written from what was parsed are well-formed XML
// that give back the message.
func FuzzParse(f *testing.F) {
	for _, seed := range []struct{ query, body string }{
		{"", "Action=CreateUser&Version=2010-05-08&UserName=alice&Tags.member.1.Key=team&Tags.member.1.Value=a"},
		{"", "Action=AssumeRole&DurationSeconds=1&ExternalId=x&Policy=%7B%7D&PolicyArns.member.1.arn=a&PolicyArns.member.2.arn=b" +
			"&RoleArn=r&RoleSessionName=s&Tags.member.1.Key=k&Tags.member.1.Value=v&TransitiveTagKeys.member.1=k&Version=2011-06-15"},
		{"", "Action=CreateOpenIDConnectProvider&Version=2010-05-08&ClientIDList.member.1=a&ClientIDList.member.10=j&ThumbprintList="},
		{"", "Action=X&Version=1&L.member.2=b&L.member.1=a&L.member.01=c"},
		{"", "Action=X&Version=1&L.member.1.F.member.1=a&L.member.1.F.member.3=c"},
		{"Action=GetCallerIdentity&Version=2011-06-15&X-Amz-Signature=abc", ""},
		{"", "Action=X&Version=1&MaxItems=99999999999999999999&OnlyAttached=TRUE"},
		{"", "Action=X&Version=1&A=%ff&B=%zz"},
	} {
		f.Add(seed.query, seed.body)
	}
	f.Fuzz(func(t *testing.T, rawQuery, body string) {
		r := &http.Request{Method: http.MethodPost, URL: &url.URL{Path: "/", RawQuery: rawQuery}, Header: http.Header{}}
		r.Header.Set("Content-Type", form)
		req, err := query.Parse(r, []byte(body))
		if err != nil {
			checkWrittenError(t, err)
			return
		}
		sent := sentParams(t, rawQuery, body)
		for name, keys := range listKeys(sent) {
			checkList(t, req, sent, name, keys)
			checkMembers(t, req, name, keys)
			if _, err := req.Tags(name); err != nil {
				checkWrittenError(t, err)
			}
			if _, err := req.PolicyARNs(name); err != nil {
				checkWrittenError(t, err)
			}
		}
		for name := range sent {
			if _, _, err := req.Int(name, 1, 1000); err != nil {
				checkWrittenError(t, err)
			}
			if _, _, err := req.Bool(name); err != nil {
				checkWrittenError(t, err)
			}
			if _, err := req.Required(name); err != nil {
				checkWrittenError(t, err)
			}
		}
		w := httptest.NewRecorder()
		query.WriteResult(w, query.IAMNamespace, req.Action, struct {
			Values []string `xml:"Values>member"`
		}{Values: values(sent)}, query.NewRequestID())
		if w.Code != http.StatusOK {
			t.Fatalf("WriteResult of parsed action %q failed: %s", req.Action, w.Body)
		}
		if err := xml.Unmarshal(w.Body.Bytes(), new(struct{})); err != nil {
			t.Fatalf("WriteResult wrote malformed XML: %v\n%s", err, w.Body)
		}
	})
}

// sentParams decodes the query and body as Parse does; Parse accepted them,
// so each name appears once.
func sentParams(t *testing.T, rawQuery, body string) map[string]string {
	sent := map[string]string{}
	for _, form := range []string{rawQuery, body} {
		vs, err := url.ParseQuery(form)
		if err != nil && form != "" {
			t.Fatalf("Parse accepted %q, which url.ParseQuery refuses: %v", form, err)
		}
		for k, v := range vs {
			sent[k] = v[0]
		}
	}
	return sent
}

// listKeys maps every name that a key in sent uses as a list (the text
// before each ".member.") to what follows "name.member." in those keys,
// in one pass so that the check costs what the parser's reads cost.
func listKeys(sent map[string]string) map[string][]string {
	lists := map[string][]string{}
	for k := range sent {
		for i := 0; ; {
			j := strings.Index(k[i:], ".member.")
			if j < 0 {
				break
			}
			name := k[:i+j]
			lists[name] = append(lists[name], k[i+j+len(".member."):])
			i += j + 1
		}
	}
	return lists
}

// checkList checks that an accepted list holds, in order, exactly the
// values sent as name.member.1 to name.member.N, and no others. rests are
// the keys of the list after "name.member.".
func checkList(t *testing.T, req *query.Request, sent map[string]string, name string, rests []string) {
	list, err := req.List(name)
	if err != nil {
		checkWrittenError(t, err)
		return
	}
	if len(list) != len(rests) {
		t.Fatalf("List(%q) has %d members; %d were sent: %v", name, len(list), len(rests), rests)
	}
	for i, v := range list {
		key := name + ".member." + strconv.Itoa(i+1)
		if got, ok := sent[key]; !ok || got != v {
			t.Fatalf("List(%q)[%d] = %q; sent %s = %q (sent: %v)", name, i, v, key, got, ok)
		}
	}
}

// checkMembers checks that an accepted list of structures has a member for
// each index from 1 to N that was sent, and none beyond.
func checkMembers(t *testing.T, req *query.Request, name string, rests []string) {
	members, err := req.Members(name)
	if err != nil {
		checkWrittenError(t, err)
		return
	}
	indexes := map[string]bool{}
	for _, rest := range rests {
		index, _, _ := strings.Cut(rest, ".")
		indexes[index] = true
	}
	if len(indexes) != len(members) {
		t.Fatalf("Members(%q) has %d members; %d indexes were sent: %v", name, len(members), len(indexes), indexes)
	}
	for i := range members {
		if !indexes[strconv.Itoa(i+1)] {
			t.Fatalf("Members(%q) has member %d, which was not sent: %v", name, i+1, indexes)
		}
	}
}

// checkWrittenError writes err and checks that the body is well-formed
// and gives back the code and, when it is valid XML text, the message.
func checkWrittenError(t *testing.T, err *query.Error) {
	w := httptest.NewRecorder()
	query.WriteError(w, query.IAMNamespace, err, "id")
	var got struct {
		Code    string `xml:"Error>Code"`
		Message string `xml:"Error>Message"`
	}
	if uerr := xml.Unmarshal(w.Body.Bytes(), &got); uerr != nil {
		t.Fatalf("WriteError wrote malformed XML: %v\n%s", uerr, w.Body)
	}
	if got.Code != err.Code || w.Code != err.Status {
		t.Fatalf("written code, status = %q, %d; want %q, %d", got.Code, w.Code, err.Code, err.Status)
	}
	if isXMLText(err.Message) && got.Message != err.Message {
		t.Fatalf("written message = %q; want %q", got.Message, err.Message)
	}
}

// isXMLText reports whether s is UTF-8 made of characters XML 1.0 allows.
func isXMLText(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if !(r == '\t' || r == '\n' || r == '\r' || r >= 0x20 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF) {
			return false
		}
	}
	return true
}

func values(sent map[string]string) []string {
	var vs []string
	for _, v := range sent {
		vs = append(vs, v)
	}
	return vs
}
