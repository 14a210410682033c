package policy

import (
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestReadAddrAgreesWithNetip(t *testing.T) {
	for _, s := range []string{
		"203.0.113.7", "0.0.0.0", "255.255.255.255", "256.1.1.1", "1.2.3", "1.2.3.4.5", "01.2.3.4", "1..2.3",
		"::", "::1", "2001:db8::1", "2001:DB8:0:0:8:800:200C:417A", "fe80::1:2", "1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8:9",
		"1:2:3:4:5:6:7::", "::ffff:203.0.113.7", "64:ff9b::192.0.2.33", "1::2::3", ":1", "1:", "12345::", "g::1", "", "not-an-ip",
	} {
		want, err := netip.ParseAddr(s)
		got, ok := readAddr(s)
		if ok != (err == nil) || (ok && got != want.Unmap()) {
			t.Errorf("readAddr(%q) = %v, %v; netip says %v, %v", s, got, ok, want, err)
		}
	}
}

func TestReadDate(t *testing.T) {
	utc := func(s string) time.Time {
		t.Helper()
		v, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	tests := []struct {
		in   string
		want time.Time
		ok   bool
	}{
		{"1767225600", utc("2026-01-01T00:00:00Z"), true},
		{"2026-01-01T00:00:00Z", utc("2026-01-01T00:00:00Z"), true},
		{"2026-01-01T00:00:00.123Z", utc("2026-01-01T00:00:00.123Z"), true},
		{"2026-01-01T01:00:00+01:00", utc("2026-01-01T00:00:00Z"), true},
		{"2025-12-31T19:00:00-0500", utc("2026-01-01T00:00:00Z"), true},
		{"2026-01-01T00:00:00", utc("2026-01-01T00:00:00Z"), true},
		{"2026-01-01T00:00Z", utc("2026-01-01T00:00:00Z"), true},
		{"2026-01-01", utc("2026-01-01T00:00:00Z"), true},
		{"2026-02-30", time.Time{}, false},
		{"2026-13-01", time.Time{}, false},
		{"2026-01-01T24:00:00Z", time.Time{}, false},
		{"2026-01-01 00:00:00", time.Time{}, false},
		{"yesterday", time.Time{}, false},
		{"", time.Time{}, false},
	}
	for _, tt := range tests {
		got, ok := readDate(tt.in)
		if ok != tt.ok || (ok && !got.Equal(tt.want)) {
			t.Errorf("readDate(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestReadNumber(t *testing.T) {
	for _, s := range []string{"0", "-7", "+7", "1.5", ".5", "5.", "1.5e3", "1E-2", " 12 ", "0x10", "1e", "--1", "1.2.3", "", "NaN", "Inf", "1e99999"} {
		got, ok := readNumber(s)
		want, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		decimal := err == nil && !strings.ContainsAny(strings.ToLower(s), "xni")
		if ok != decimal || (ok && got != want) {
			t.Errorf("readNumber(%q) = %v, %v; want %v, %v", s, got, ok, want, decimal)
		}
	}
}

// FuzzReadAddr checks the allocation-free address reader against netip.
func FuzzReadAddr(f *testing.F) {
	for _, s := range []string{"203.0.113.7", "2001:db8::1", "::ffff:1.2.3.4", "1:2:3:4:5:6:7:8", "::", "1::"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.Contains(s, "%") {
			return // zones: netip accepts them, AWS source addresses have none
		}
		want, err := netip.ParseAddr(strings.TrimSpace(s))
		got, ok := readAddr(s)
		if ok != (err == nil) || (ok && got != want.Unmap()) {
			t.Errorf("readAddr(%q) = %v, %v; netip says %v, %v", s, got, ok, want, err)
		}
	})
}
