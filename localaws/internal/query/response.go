package query

import (
	"bytes"
	"encoding/xml"
	"net/http"
	"strconv"
)

// The XML namespaces of the services' responses.
const (
	IAMNamespace = "https://iam.amazonaws.com/doc/2010-05-08/"
	STSNamespace = "https://sts.amazonaws.com/doc/2011-06-15/"
)

// WriteResult writes a successful response as AWS does:
//
//	<{action}Response xmlns="{namespace}">
//	  <{action}Result>…</{action}Result>
//	  <ResponseMetadata><RequestId>…</RequestId></ResponseMetadata>
//	</{action}Response>
//
// result is a struct (or pointer to one) whose fields carry encoding/xml
// tags with the output shape's member names; see OptionalList and
// Timestamp for lists and times. A nil result, for operations with no output such as
// DeleteUser, writes ResponseMetadata alone.
//
// The body is built before anything is sent, so a result that cannot be
// encoded (a bug in a handler) is answered with InternalFailure instead of
// a truncated document.
func WriteResult(w http.ResponseWriter, namespace, action string, result any, requestID string) {
	var buf bytes.Buffer
	err := encodeResult(&buf, namespace, action, result, requestID)
	if err != nil {
		WriteError(w, namespace, InternalFailure("encode the "+action+" result: "+err.Error()), requestID)
		return
	}
	writeXML(w, http.StatusOK, buf.Bytes(), requestID)
}

type responseMetadata struct {
	RequestID string `xml:"RequestId"`
}

func encodeResult(buf *bytes.Buffer, namespace, action string, result any, requestID string) error {
	if !isOperationName(action) {
		return errInvalidAction(action)
	}
	if encodeResultFast(buf, namespace, action, result, requestID) {
		return nil
	}
	return encodeResultXML(buf, namespace, action, result, requestID)
}

// encodeResultXML is encodeResult through encoding/xml, for results whose
// type has no plan (fastxml.go).
func encodeResultXML(buf *bytes.Buffer, namespace, action string, result any, requestID string) error {
	enc := xml.NewEncoder(buf)
	root := xml.StartElement{Name: xml.Name{Local: action + "Response"}, Attr: []xml.Attr{{Name: xml.Name{Local: "xmlns"}, Value: namespace}}}
	if err := enc.EncodeToken(root); err != nil {
		return err
	}
	if result != nil {
		if err := enc.EncodeElement(result, xml.StartElement{Name: xml.Name{Local: action + "Result"}}); err != nil {
			return err
		}
	}
	if err := enc.EncodeElement(responseMetadata{RequestID: requestID}, xml.StartElement{Name: xml.Name{Local: "ResponseMetadata"}}); err != nil {
		return err
	}
	if err := enc.EncodeToken(root.End()); err != nil {
		return err
	}
	return enc.Flush()
}

type errInvalidAction string

func (e errInvalidAction) Error() string {
	return "action " + quote(string(e)) + " is not an operation name (an ASCII letter, then letters and digits)"
}

// errorResponse is the envelope of an error, as IAM and STS write it.
type errorResponse struct {
	XMLName   xml.Name `xml:"ErrorResponse"`
	Namespace string   `xml:"xmlns,attr"`
	Error     struct {
		Type    string `xml:"Type"`
		Code    string `xml:"Code"`
		Message string `xml:"Message"`
	} `xml:"Error"`
	RequestID string `xml:"RequestId"`
}

// WriteError writes err as AWS does, with err's HTTP status:
//
//	<ErrorResponse xmlns="{namespace}">
//	  <Error><Type>Sender</Type><Code>…</Code><Message>…</Message></Error>
//	  <RequestId>…</RequestId>
//	</ErrorResponse>
//
// It takes the namespace, as WriteResult does, because IAM and STS write
// their own. A nil err, or one with no status, is written as a 500
// InternalFailure so that a handler's slip still reaches the caller as an
// error.
func WriteError(w http.ResponseWriter, namespace string, err *Error, requestID string) {
	if err == nil {
		err = InternalFailure("the handler failed without saying why")
	}
	status, typ := err.Status, err.Type
	if status == 0 {
		status = http.StatusInternalServerError
	}
	if typ == "" {
		typ = NewError(status, "", "").Type
	}
	var resp errorResponse
	resp.Namespace = namespace
	resp.Error.Type, resp.Error.Code, resp.Error.Message = typ, err.Code, err.Message
	resp.RequestID = requestID
	body, marshalErr := xml.Marshal(resp)
	if marshalErr != nil {
		// Strings always marshal; this is unreachable, but an empty 500
		// is still an answer.
		http.Error(w, "", http.StatusInternalServerError)
		return
	}
	writeXML(w, status, body, requestID)
}

func writeXML(w http.ResponseWriter, status int, body []byte, requestID string) {
	h := w.Header()
	h.Set("Content-Type", "text/xml")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("X-Amzn-RequestId", requestID)
	w.WriteHeader(status)
	_, _ = w.Write(body) // a client gone away cannot be told
}
