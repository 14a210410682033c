// Package query speaks the AWS Query protocol, the wire format of IAM and
// STS, so that aws-sdk-go-v2 and the AWS CLI talk to leash's local endpoint
// unchanged. It parses form-encoded requests into an Action, a Version and
// parameters, and writes results and errors in the XML shapes AWS writes.
// It knows nothing of the operations themselves: the handlers do.
//
// # Requests
//
// [Parse] reads the URL query and a form-urlencoded body. The accessors of
// [Params] read scalars, member lists (Name.member.N), lists of structures
// (Name.member.N.Field), [Params.Tags] and STS's PolicyArns.member.N.arn
// ([Params.PolicyARNs]), and fail in the terms IAM and STS use.
//
// # Error codes, and where they come from
//
// IAM and STS validate requests with the same front end, and word the
// failures alike:
//
//   - A required member that is absent, an empty one, or an integer out of
//     its range is a ValidationError (400) worded "1 validation error
//     detected: Value null at 'userName' failed to satisfy constraint:
//     Member must not be null", the member named in lower camel case and a
//     list member as 'tags.1.member.key'. Public reports quote STS so for an
//     absent roleSessionName (aws/aws-sdk-cpp#1252) and IAM so for a
//     roleName too long; the absent case of IAM is inferred from the front
//     end the two share. Neither uses MissingParameter or
//     InvalidParameterValue for an operation's members, although AWS's
//     generic list of common errors names both.
//   - Input that cannot be read as the operation's shape (a list with a gap
//     or a bad index, an integer or a boolean that is not one, a list sent
//     as a scalar) is MalformedInput (400), the code AWS's query front end
//     gives input it cannot deserialize (reported for IAM sent
//     UserName.1=alice, and for CloudFormation's and CloudWatch's query
//     APIs). A parameter sent twice is refused the same way.
//   - A body that is not form encoding, or not UTF-8, is
//     MalformedQueryString, with the 404 status AWS's common-errors list
//     gives it.
//   - No Action is MissingAction (400); an Action the caller does not serve
//     is InvalidAction (400) worded "Could not find operation X for version
//     Y". No Version is MissingParameter (400), the common error for a
//     parameter of the protocol rather than of the operation.
//   - The modeled errors (NoSuchEntity, EntityAlreadyExists, LimitExceeded,
//     IDPRejectedClaim...) carry the code and status of the awsQueryError
//     trait in the SDK's service model (service/iam/schemas and
//     service/sts/schemas), which is what the SDK matches to its typed
//     errors. LimitExceeded is 409 there, not 400.
//   - Throttling is the code IAM and STS send (400); the SDK's retryer
//     treats it as throttling. ExpiredToken (403) is the common error for an
//     expired session token; STS's own ExpiredTokenException (400) is for an
//     expired web identity or SAML token.
//
// Messages copy AWS's wording where AWS's wording is known, and otherwise
// name the parameter and what would make it right.
//
// # Responses
//
// [WriteResult] and [WriteError] write the envelopes; result types are
// plain structs with encoding/xml tags: a list is a slice tagged
// `xml:"Users>member"`, an [OptionalList] one that AWS leaves out when
// empty, [Timestamp] writes a time as AWS does, and [PolicyDocument]
// URL-encodes a policy as IAM returns it.
package query
