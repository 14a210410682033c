package sigv4

import "net/http"

// sessionToken checks the request's X-Amz-Security-Token against the key:
// temporary credentials need the token they were issued with, and a
// long-term key takes none. It returns the token, "" for a long-term key.
// The token is a credential, so it is compared in constant time and never
// repeated in a message.
func sessionToken(r *http.Request, params []param, accessKeyID string, secret Secret) (string, *Error) {
	token, err := requestToken(r, params)
	if err != nil {
		return "", err
	}
	key := func() string { return "access key " + quoteName(accessKeyID) }
	switch {
	case secret.SessionToken == "" && token == "":
		return "", nil
	case secret.SessionToken == "":
		return "", invalidToken(key() + " is a long-term key and takes no session token. Remove X-Amz-Security-Token, or sign with the temporary credentials the token was issued with.")
	case token == "":
		return "", invalidToken(key() + " belongs to temporary credentials, and the request carries no session token. Send the session token issued with them in X-Amz-Security-Token.")
	case !equalConstantTime(token, secret.SessionToken):
		return "", invalidToken("the session token is not the one issued with " + key() + ". Send the session token issued with these temporary credentials in X-Amz-Security-Token.")
	}
	return token, nil
}

// requestToken returns the session token from the X-Amz-Security-Token header
// or query parameter. A request may carry it in either; carrying two
// different tokens is refused rather than guessed at.
func requestToken(r *http.Request, params []param) (string, *Error) {
	var header string
	switch values := r.Header["X-Amz-Security-Token"]; {
	case len(values) > 1:
		return "", incomplete("The request carries more than one X-Amz-Security-Token header. Send exactly one.")
	case len(values) == 1:
		header = values[0]
	}
	query, count := lookupParam(params, "X-Amz-Security-Token")
	switch {
	case count > 1:
		return "", incomplete("The query string gives X-Amz-Security-Token more than once. Give it once.")
	case header != "" && query != "" && !equalConstantTime(header, query):
		return "", incomplete("The request carries one session token in the X-Amz-Security-Token header and another in the query string. Send one.")
	case header != "":
		return header, nil
	}
	return query, nil
}
