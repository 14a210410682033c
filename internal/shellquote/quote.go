// Package shellquote writes a word so that a POSIX shell reads it back as
// it is: for commands leash prints for a person to run.
package shellquote

import "strings"

// Quote quotes s for a POSIX shell when it holds anything but the
// characters paths and URLs usually have.
func Quote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./+:@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
