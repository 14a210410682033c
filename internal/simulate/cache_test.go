package simulate

import (
	"encoding/json"
	"fmt"
	"testing"

	"leash.dev/leash/policy"
)

func TestDocCache(t *testing.T) {
	allow := json.RawMessage(`{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:GetObject", "Resource": "*"}]}`)
	t.Run("the same bytes are kept from their second use and shared", func(t *testing.T) {
		c := newDocCache(4, 1<<20, 1<<20)
		a := c.get(allow, policy.Identity, "s3:GetObject")
		if a.err != nil || a.compiled == nil {
			t.Fatalf("error %v, compiled %v: want a compiled document", a.err, a.compiled)
		}
		if c.own.order.Len() != 0 {
			t.Errorf("the cache kept a document used once")
		}
		b := c.get(append(json.RawMessage(nil), allow...), policy.Identity, "s3:GetObject")
		d := c.get(append(json.RawMessage(nil), allow...), policy.Identity, "s3:GetObject")
		if b.compiled != d.compiled || c.own.order.Len() != 1 {
			t.Error("the third use of the same bytes compiled a new document")
		}
	})
	t.Run("a document kept answers every action, though first used for one", func(t *testing.T) {
		c := newDocCache(4, 1<<20, 1<<20)
		doc := json.RawMessage(`{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:GetObject", "Resource": "*"}, {"Effect": "Allow", "Action": "sqs:SendMessage", "Resource": "*"}]}`)
		decide := func(e *docEntry, action string) policy.Decision {
			var base policy.Policies
			return base.With(policy.Parts{Identity: []*policy.Compiled{e.compiled}}).Decide(&policy.Request{Action: action, Resource: "*"})
		}
		if got := decide(c.get(doc, policy.Identity, "s3:GetObject"), "s3:GetObject"); got != policy.Allowed {
			t.Errorf("first use, for its own action: %s, want Allowed", got)
		}
		kept := c.get(doc, policy.Identity, "s3:GetObject")
		for _, action := range []string{"s3:GetObject", "sqs:SendMessage"} {
			if got := decide(kept, action); got != policy.Allowed {
				t.Errorf("the kept document for %s: %s, want Allowed", action, got)
			}
		}
	})
	t.Run("a document used once never displaces a kept one", func(t *testing.T) {
		c := newDocCache(1, 1<<20, 1<<20)
		c.get(allow, policy.Identity, "s3:GetObject")
		kept := c.get(allow, policy.Identity, "s3:GetObject")
		for i := range 10 {
			c.get(json.RawMessage(fmt.Sprintf(`{"Statement": {"Sid": "S%d", "Effect": "Allow", "Action": "*", "Resource": "*"}}`, i)), policy.Identity, "s3:GetObject")
		}
		if c.get(allow, policy.Identity, "s3:GetObject") != kept {
			t.Error("documents used once pushed out the one used three times")
		}
	})
	t.Run("the principals' documents never push out the organization's", func(t *testing.T) {
		c := newDocCache(2, 1<<20, 1<<20)
		c.get(allow, policy.SCP, "s3:GetObject")
		scp := c.get(allow, policy.SCP, "s3:GetObject")
		for i := range 10 {
			doc := json.RawMessage(fmt.Sprintf(`{"Statement": {"Sid": "S%d", "Effect": "Allow", "Action": "*", "Resource": "*"}}`, i))
			c.get(doc, policy.Identity, "s3:GetObject")
			c.get(doc, policy.Identity, "s3:GetObject")
		}
		if c.get(allow, policy.SCP, "s3:GetObject") != scp {
			t.Error("identity policies used twice each pushed out the SCP")
		}
	})
	t.Run("the text kept stays within its bound", func(t *testing.T) {
		c := newDocCache(100, 1<<20, 16*len(allow))
		doc := func(i int) json.RawMessage {
			return json.RawMessage(fmt.Sprintf(`{"Statement": {"Sid": "S%d", "Effect": "Allow", "Action": "*", "Resource": "*"}}`, i))
		}
		for i := range 40 {
			c.get(doc(i), policy.Identity, "s3:GetObject")
			c.get(doc(i), policy.Identity, "s3:GetObject")
			if c.own.bytes > c.own.maxBytes {
				t.Fatalf("the cache keeps %d bytes of text, more than its %d", c.own.bytes, c.own.maxBytes)
			}
		}
		if c.own.order.Len() == 0 {
			t.Error("the cache kept nothing")
		}
	})
	t.Run("the same bytes as another kind are checked as that kind", func(t *testing.T) {
		c := newDocCache(4, 1<<20, 1<<20)
		c.get(allow, policy.Identity, "s3:GetObject")
		if e := c.get(allow, policy.Identity, "s3:GetObject"); e.err != nil {
			t.Fatal(e.err)
		}
		if e := c.get(allow, policy.Resource, "s3:GetObject"); e.err == nil {
			t.Error("an identity policy without Principal was accepted as a resource policy from the cache")
		}
	})
	t.Run("errors are kept with their document", func(t *testing.T) {
		c := newDocCache(4, 1<<20, 1<<20)
		bad := json.RawMessage(`{"Statement": [{"Effect": "allow ", "Action": "*", "Resource": "*"}]}`)
		c.get(bad, policy.Identity, "s3:GetObject")
		err1, err2 := c.get(bad, policy.Identity, "s3:GetObject").err, c.get(bad, policy.Identity, "s3:GetObject").err
		if err1 == nil || err2 == nil || err1.Error() != err2.Error() {
			t.Errorf("errors %v and %v, want the same error twice", err1, err2)
		}
	})
	t.Run("the least recently used document goes when the cache is full", func(t *testing.T) {
		c := newDocCache(3, 1<<20, 1<<20)
		doc := func(i int) json.RawMessage {
			return json.RawMessage(fmt.Sprintf(`{"Statement": {"Sid": "S%d", "Effect": "Allow", "Action": "*", "Resource": "*"}}`, i))
		}
		c.get(doc(0), policy.Identity, "s3:GetObject")
		first := c.get(doc(0), policy.Identity, "s3:GetObject")
		for i := 1; i < 3; i++ {
			c.get(doc(i), policy.Identity, "s3:GetObject")
			c.get(doc(i), policy.Identity, "s3:GetObject")
		}
		c.get(doc(0), policy.Identity, "s3:GetObject") // 0 is now the most recently used
		for i := 3; i < 10; i++ {
			c.get(doc(i), policy.Identity, "s3:GetObject")
			c.get(doc(i), policy.Identity, "s3:GetObject")
			if c.own.order.Len() > 3 || len(c.own.byHash) > 3 {
				t.Fatalf("the cache holds %d documents, more than its 3", c.own.order.Len())
			}
		}
		again := c.get(doc(0), policy.Identity, "s3:GetObject")
		if again == first {
			t.Error("document 0 outlived seven newer ones in a cache of 3")
		}
	})
}

// TestDocCacheNeverMistakesOneDocumentForAnother pins that two documents
// sharing a hash are told apart by their bytes: the cache answers each with
// its own parse.
func TestDocCacheNeverMistakesOneDocumentForAnother(t *testing.T) {
	c := newDocCache(4, 1<<20, 1<<20)
	a := json.RawMessage(`{"Statement":{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}}`)
	b := json.RawMessage(`{"Statement":{"Effect":"Deny","Action":"s3:GetObject","Resource":"*"}}`)
	c.get(a, policy.Identity, "s3:GetObject")
	ea := c.get(a, policy.Identity, "s3:GetObject")
	// Force a collision: a's entry filed under b's hash.
	c.own.byHash[c.sum(b, policy.Identity)] = c.own.byHash[ea.hash]
	if eb := c.get(b, policy.Identity, "s3:GetObject"); eb == ea || eb.raw != string(b) {
		t.Fatalf("b was answered with a's entry (%s)", eb.raw)
	}
	if got := c.get(b, policy.Identity, "s3:GetObject"); got.raw != string(b) {
		t.Errorf("b's second lookup got %s", got.raw)
	}
	if got := c.get(a, policy.Resource, "s3:GetObject"); got.kind != policy.Resource {
		t.Errorf("a as a resource policy came back as %s", got.kind)
	}
}
