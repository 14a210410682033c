package localaws

import (
	"net/http"
	"regexp"
	"strings"

	"leash.dev/leash/localaws/internal/query"
	"leash.dev/leash/localaws/internal/store"
)

// stsKeyInfoOperations adds GetAccessKeyInfo and DecodeAuthorizationMessage,
// the two STS reads that tell a caller about a credential or a refusal
// rather than issuing one.
func stsKeyInfoOperations(ops map[string]operation) {
	ops["GetAccessKeyInfo"] = operation{
		readOnly: true,
		// The action has no resource types: only Resource "*" grants it.
		target: onAnyResource,
		run:    getAccessKeyInfo,
	}
	ops["DecodeAuthorizationMessage"] = operation{
		readOnly: true,
		target:   onAnyResource,
		run:      decodeAuthorizationMessage,
	}
}

// accessKeyIDPattern and the lengths are the STS API reference's for
// AccessKeyId (API_GetAccessKeyInfo.html: 16 to 128 word characters).
var accessKeyIDPattern = regexp.MustCompile(`^[\w]+$`)

const (
	minAccessKeyIDLen = 16
	maxAccessKeyIDLen = 128
)

// getAccessKeyInfo answers the account an access key ID belongs to. AWS
// answers it for a key of any account, active, inactive or deleted, and
// tells the caller only the account ID, never the user or role
// (API_GetAccessKeyInfo.html); it reads the account out of the key ID,
// whose layout AWS does not document. leash local's key IDs are random, so
// it answers for the keys it issued (long-term keys of any status, and
// sessions) with its one account, and refuses any other key rather than
// guess an account: AWS too may answer a deleted key with an error that it
// does not exist.
func getAccessKeyInfo(c *call) (any, error) {
	id, err := c.required("AccessKeyId")
	if err != nil {
		return nil, err
	}
	switch {
	case len(id) < minAccessKeyIDLen:
		return nil, c.q.Invalid("AccessKeyId", "Member must have length greater than or equal to 16")
	case len(id) > maxAccessKeyIDLen:
		return nil, c.q.Invalid("AccessKeyId", "Member must have length less than or equal to 128")
	case !accessKeyIDPattern.MatchString(id):
		return nil, c.q.Invalid("AccessKeyId", `Member must satisfy regular expression pattern: [\w]+`)
	}
	if !issuedHere(c.tx, id) {
		return nil, query.NewError(http.StatusBadRequest, "InvalidParameterValue",
			"leash local did not issue the access key "+id+" and cannot tell its account: AWS reads the account out of "+
				"its own key IDs in a form it does not document. Ask AWS STS about keys leash local did not create.")
	}
	return struct {
		Account string `xml:"Account"`
	}{c.tx.Account().ID}, nil
}

// issuedHere reports whether the store holds the long-term key or session
// of that ID, whatever its state.
func issuedHere(tx *store.Tx, id string) bool {
	if strings.HasPrefix(id, "ASIA") {
		_, err := tx.GetSession(id)
		return err == nil
	}
	_, err := tx.GetAccessKey(id)
	return err == nil
}

// maxEncodedMessageLen is the STS API reference's bound on EncodedMessage
// (API_DecodeAuthorizationMessage.html).
const maxEncodedMessageLen = 10240

// decodeAuthorizationMessage refuses every message, once the caller is
// allowed sts:DecodeAuthorizationMessage: only the AWS operations whose
// reference says so encode their authorization failures (EC2's, among
// others), and IAM's and STS's do not. leash local serves only IAM and STS
// and states every refusal in plain words, so no message it returns is
// encoded, and there is nothing it could decode.
func decodeAuthorizationMessage(c *call) (any, error) {
	msg, err := c.required("EncodedMessage")
	if err != nil {
		return nil, err
	}
	if len(msg) > maxEncodedMessageLen {
		return nil, c.q.Invalid("EncodedMessage", "Member must have length less than or equal to 10240")
	}
	return nil, query.NewError(http.StatusBadRequest, "InvalidAuthorizationMessageException",
		"leash local never encodes authorization messages: its AccessDenied errors give the reason in plain words, "+
			"as IAM's and STS's do. Decode a message with the service that returned it.")
}
