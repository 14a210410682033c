package query_test

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	ststypes "github.com/aws/aws-sdk-go-v2/service/sts/types"
	"github.com/aws/smithy-go"

	"leash.dev/leash/localaws/internal/query"
)

// isA reports whether err wraps an error of type T, the SDK's typed error
// for a modeled code.
func isA[T error](err error) bool {
	var target T
	return errors.As(err, &target)
}

func TestSDKSurfacesOurErrors(t *testing.T) {
	e := newEndpoint(t)
	iamClient, stsClient := e.iam(), e.sts()
	ctx := context.Background()
	user := aws.String("alice")
	getUser := func() error { _, err := iamClient.GetUser(ctx, &iam.GetUserInput{UserName: user}); return err }
	listUsers := func() error { _, err := iamClient.ListUsers(ctx, &iam.ListUsersInput{}); return err }
	webIdentity := func() error {
		_, err := stsClient.AssumeRoleWithWebIdentity(ctx, &sts.AssumeRoleWithWebIdentityInput{
			RoleArn: aws.String("arn:aws:iam::123456789012:role/ci"), RoleSessionName: aws.String("ci"), WebIdentityToken: aws.String("jwt"),
		})
		return err
	}

	tests := []struct {
		name   string
		action string
		err    *query.Error
		call   func() error
		// typed reports whether the SDK matched the code to its typed
		// error; nil for codes the service models do not have.
		typed func(error) bool
	}{
		{"NoSuchEntity reaches the SDK as its typed error with 404", "GetUser",
			query.NoSuchEntity("The user with name alice cannot be found."), getUser, isA[*iamtypes.NoSuchEntityException]},
		{"EntityAlreadyExists is typed with 409", "CreateUser",
			query.EntityAlreadyExists("User with name alice already exists."),
			func() error { _, err := iamClient.CreateUser(ctx, &iam.CreateUserInput{UserName: user}); return err },
			isA[*iamtypes.EntityAlreadyExistsException]},
		{"DeleteConflict is typed with 409", "DeleteUser",
			query.DeleteConflict("Cannot delete entity, must delete access keys first."),
			func() error { _, err := iamClient.DeleteUser(ctx, &iam.DeleteUserInput{UserName: user}); return err },
			isA[*iamtypes.DeleteConflictException]},
		{"LimitExceeded is typed with 409", "CreateAccessKey",
			query.LimitExceeded("Cannot exceed quota for AccessKeysPerUser: 2"),
			func() error {
				_, err := iamClient.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{UserName: user})
				return err
			},
			isA[*iamtypes.LimitExceededException]},
		{"MalformedPolicyDocument is typed with 400", "PutUserPolicy",
			query.MalformedPolicyDocument("Syntax errors in policy."),
			func() error {
				_, err := iamClient.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: user, PolicyName: user, PolicyDocument: aws.String("{")})
				return err
			},
			isA[*iamtypes.MalformedPolicyDocumentException]},
		{"ServiceFailure is typed with 500", "ListUsers",
			query.ServiceFailure("The store is unavailable."), listUsers, isA[*iamtypes.ServiceFailureException]},
		{"ValidationError keeps a message with markup and a newline intact", "ListUsers",
			query.ValidationError("1 validation error detected: Value 'a<b>&\"c\"' at 'userName' failed\nto satisfy constraint"), listUsers, nil},
		{"AccessDenied is 403", "ListUsers",
			query.AccessDenied("User: arn:aws:iam::123456789012:user/alice is not authorized to perform: iam:ListUsers on resource: arn:aws:iam::123456789012:user/"),
			listUsers, nil},
		{"Throttling is 400", "ListUsers", query.Throttling(""), listUsers, nil},
		{"InvalidClientTokenId is 403", "ListUsers", query.InvalidClientTokenID(""), listUsers, nil},
		{"ServiceUnavailable is 503", "ListUsers", query.ServiceUnavailable("Try again."), listUsers, nil},
		{"ExpiredToken from STS is 403", "GetCallerIdentity", query.ExpiredToken(""),
			func() error { _, err := stsClient.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{}); return err }, nil},
		{"InvalidIdentityToken is STS's typed error", "AssumeRoleWithWebIdentity",
			query.InvalidIdentityToken("Couldn't retrieve verification key from your identity provider."), webIdentity,
			isA[*ststypes.InvalidIdentityTokenException]},
		{"IDPRejectedClaim is STS's typed error with 403", "AssumeRoleWithWebIdentity",
			query.IDPRejectedClaim("Incorrect token audience."), webIdentity, isA[*ststypes.IDPRejectedClaimException]},
		{"STS's ExpiredTokenException is typed", "AssumeRoleWithWebIdentity",
			query.ExpiredIdentityToken("Token expired: current date/time 1 must be before the expiration date/time 0"), webIdentity,
			isA[*ststypes.ExpiredTokenException]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.fail(tt.action, tt.err)
			err := tt.call()
			if err == nil {
				t.Fatal("the call succeeded")
			}
			var apiErr smithy.APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("error %v is not a smithy.APIError", err)
			}
			if apiErr.ErrorCode() != tt.err.Code || apiErr.ErrorMessage() != tt.err.Message {
				t.Errorf("code, message = %q, %q\n                 want %q, %q", apiErr.ErrorCode(), apiErr.ErrorMessage(), tt.err.Code, tt.err.Message)
			}
			var respErr *awshttp.ResponseError
			if !errors.As(err, &respErr) {
				t.Fatalf("error %v is not an *awshttp.ResponseError", err)
			}
			_, requestID := e.last()
			if respErr.HTTPStatusCode() != tt.err.Status || respErr.ServiceRequestID() != requestID {
				t.Errorf("status, request ID = %d, %q; want %d, %q", respErr.HTTPStatusCode(), respErr.ServiceRequestID(), tt.err.Status, requestID)
			}
			if tt.typed != nil && !tt.typed(err) {
				t.Errorf("error %T is not the SDK's typed error for %s", apiErr, tt.err.Code)
			}
		})
	}
}

func TestSDKSeesAnUnservedActionAsInvalidAction(t *testing.T) {
	e := newEndpoint(t)
	// An action leash local does not serve: SAML providers.
	_, err := e.iam().ListSAMLProviders(context.Background(), &iam.ListSAMLProvidersInput{})
	var apiErr smithy.APIError
	if !errors.As(err, &apiErr) || apiErr.ErrorCode() != "InvalidAction" ||
		apiErr.ErrorMessage() != "Could not find operation ListSAMLProviders for version 2010-05-08" {
		t.Errorf("error = %v; want InvalidAction naming the operation and version", err)
	}
}
