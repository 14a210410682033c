package jsonrpc

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestTimeIsEpochSeconds(t *testing.T) {
	tests := []struct {
		name string
		json string
		want time.Time
		err  bool
	}{
		{"whole seconds", `1764417605`, time.Date(2025, 11, 29, 12, 0, 5, 0, time.UTC), false},
		{"milliseconds in the fraction", `1764417605.25`, time.Date(2025, 11, 29, 12, 0, 5, 250e6, time.UTC), false},
		{"a string is not a timestamp", `"2025-11-29T12:00:05Z"`, time.Time{}, true},
		{"out of range", `1e300`, time.Time{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got Time
			err := json.Unmarshal([]byte(tt.json), &got)
			if (err != nil) != tt.err || !got.Equal(tt.want) {
				t.Fatalf("Unmarshal(%s) = %v, %v; want %v (error %t)", tt.json, got, err, tt.want, tt.err)
			}
			if tt.err {
				return
			}
			back, _ := json.Marshal(got)
			var again Time
			if err := json.Unmarshal(back, &again); err != nil || !again.Equal(tt.want) {
				t.Errorf("round trip through %s gave %v, %v", back, again, err)
			}
		})
	}
}

func TestDecodeAndErrors(t *testing.T) {
	req := func(method, ct string) *http.Request {
		r := httptest.NewRequest(method, "/", nil)
		r.Header.Set("Content-Type", ct)
		r.Header.Set("X-Amz-Target", "CloudTrail_20131101.LookupEvents")
		return r
	}
	var v struct{ MaxResults int }
	if err := Decode(req(http.MethodPost, ContentType), []byte(`{"MaxResults":3}`), &v); err != nil || v.MaxResults != 3 {
		t.Errorf("Decode: %v, %+v", err, v)
	}
	if err := Decode(req(http.MethodPost, ContentType), nil, &v); err != nil {
		t.Errorf("an empty body is an empty request: %v", err)
	}
	for name, tc := range map[string]struct {
		r    *http.Request
		body string
	}{
		"a GET":              {req(http.MethodGet, ContentType), `{}`},
		"form-encoded":       {req(http.MethodPost, "application/x-www-form-urlencoded"), `{}`},
		"not JSON":           {req(http.MethodPost, ContentType), `{`},
		"a field's bad type": {req(http.MethodPost, ContentType), `{"MaxResults":"three"}`},
	} {
		if err := Decode(tc.r, []byte(tc.body), &v); err == nil || err.Code != "SerializationException" || err.Status != http.StatusBadRequest {
			t.Errorf("%s: %v, want a 400 SerializationException", name, err)
		}
	}
	if prefix, action, ok := Target(req(http.MethodPost, ContentType)); !ok || prefix != "CloudTrail_20131101" || action != "LookupEvents" {
		t.Errorf("Target = %q, %q, %t", prefix, action, ok)
	}
	if _, _, ok := Target(httptest.NewRequest(http.MethodPost, "/", nil)); ok {
		t.Error("a request without X-Amz-Target is not JSON 1.1")
	}
	w := httptest.NewRecorder()
	WriteError(w, "rid", &Error{Status: http.StatusBadRequest, Code: "InvalidNextTokenException", Message: "bad token"})
	if w.Code != http.StatusBadRequest || w.Header().Get("X-Amzn-RequestId") != "rid" || !strings.Contains(w.Body.String(), `"__type":"InvalidNextTokenException"`) {
		t.Errorf("WriteError: %d %v %s", w.Code, w.Header(), w.Body)
	}
}
