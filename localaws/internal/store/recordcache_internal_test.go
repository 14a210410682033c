package store

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestCopyPlanAcceptsOnlyTypesItCanCopyApart pins which record types the
// cache takes: those clone can copy so that no two copies share anything a
// caller could change.
func TestCopyPlanAcceptsOnlyTypesItCanCopyApart(t *testing.T) {
	type tree struct {
		Name     string
		Children []tree
	}
	for _, c := range []struct {
		name string
		typ  reflect.Type
		ok   bool
	}{
		{"a user", reflect.TypeFor[User](), true},
		{"a role", reflect.TypeFor[Role](), true},
		{"an access key with its secret", reflect.TypeFor[storedAccessKey](), true},
		{"a managed policy", reflect.TypeFor[ManagedPolicy](), true},
		{"a policy version", reflect.TypeFor[PolicyVersion](), true},
		{"a session", reflect.TypeFor[Session](), true},
		{"an OIDC provider", reflect.TypeFor[OIDCProvider](), true},
		{"a recursive type", reflect.TypeFor[tree](), true},
		{"maps of slices", reflect.TypeFor[map[string][]string](), true},
		{"an interface field is refused", reflect.TypeFor[struct{ V any }](), false},
		{"a func field is refused", reflect.TypeFor[struct{ F func() }](), false},
		{"an unexported slice is refused", reflect.TypeFor[struct{ s []string }](), false},
		{"an unexported map is refused", reflect.TypeFor[struct{ m map[string]int }](), false},
		{"an unexported plain field is taken", reflect.TypeFor[struct {
			n int
			s string
			t time.Time
		}](), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := planFor(c.typ).ok; got != c.ok {
				t.Errorf("planFor(%v).ok = %v, want %v", c.typ, got, c.ok)
			}
		})
	}
}

// TestCloneSharesNothing pins that a clone of a recursive value with
// slices, maps and pointers can be changed without changing the original.
func TestCloneSharesNothing(t *testing.T) {
	type node struct {
		Name     string
		Children []node
		Labels   map[string][]string
		Next     *node
	}
	orig := node{Name: "root", Children: []node{{Name: "child", Labels: map[string][]string{"k": {"v"}}}}, Next: &node{Name: "next"}}
	want := node{Name: "root", Children: []node{{Name: "child", Labels: map[string][]string{"k": {"v"}}}}, Next: &node{Name: "next"}}
	plan := planFor(reflect.TypeFor[node]())
	var cp node
	plan.cloneInto(reflect.ValueOf(&cp).Elem(), reflect.ValueOf(orig))
	if !reflect.DeepEqual(cp, orig) {
		t.Fatalf("clone = %+v, want %+v", cp, orig)
	}
	cp.Children[0].Name = "changed"
	cp.Children[0].Labels["k"][0] = "changed"
	cp.Children[0].Labels["new"] = nil
	cp.Next.Name = "changed"
	if !reflect.DeepEqual(orig, want) {
		t.Errorf("changing the clone changed the original: %+v", orig)
	}
}

// TestCacheStaysWithinItsLimit pins the bound on the cache's memory, and
// that a record over the limit is not kept.
func TestCacheStaysWithinItsLimit(t *testing.T) {
	c := newRecordCache(1000)
	v := reflect.ValueOf("decoded")
	for i := range 100 {
		c.add("users", []byte{byte(i)}, []byte(strings.Repeat("x", 90)), v)
		if c.size > c.limit {
			t.Fatalf("after %d records, size %d over the limit %d", i+1, c.size, c.limit)
		}
	}
	held := 0
	for _, b := range c.buckets {
		for _, e := range b {
			held += len(e.raw)
		}
	}
	if held != c.size || held < 900 {
		t.Errorf("holds %d bytes, counts %d; want the count exact and the cache near its limit of 1000", held, c.size)
	}
	c.add("users", []byte("big"), []byte(strings.Repeat("x", 1001)), v)
	if _, ok := c.lookup("users", []byte("big"), []byte(strings.Repeat("x", 1001)), v.Type()); ok {
		t.Error("a record over the limit was kept")
	}
}

// TestUnchangedRecordIsServedFromTheCache pins that the cache is used: a
// second read of an unchanged record finds it, and a changed one does not.
func TestUnchangedRecordIsServedFromTheCache(t *testing.T) {
	c := newRecordCache(maxCachedBytes)
	raw := []byte(`{"Name":"alice"}`)
	c.add("users", []byte("alice"), raw, reflect.ValueOf(User{Name: "alice"}))
	if v, ok := c.lookup("users", []byte("alice"), []byte(`{"Name":"alice"}`), reflect.TypeFor[User]()); !ok || v.Interface().(User).Name != "alice" {
		t.Errorf("lookup of the same bytes = %v, %v; want the cached user", v, ok)
	}
	if _, ok := c.lookup("users", []byte("alice"), []byte(`{"Name":"alicf"}`), reflect.TypeFor[User]()); ok {
		t.Error("lookup of changed bytes found the old record")
	}
	if _, ok := c.lookup("users", []byte("alice"), raw, reflect.TypeFor[Role]()); ok {
		t.Error("lookup as another type found the user")
	}
}
