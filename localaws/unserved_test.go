package localaws_test

import (
	"context"
	"errors"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/cloudtrail"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"

	"leash.dev/leash/localaws"
	"leash.dev/leash/localaws/localtest"
)

// localDoc is the page whose "Operations not served" section the test keeps
// complete.
const localDoc = "../docs/local.md"

// sdkOperations names the operations of an AWS SDK for Go client: its
// methods of the form X(context.Context, *XInput, ...func(*Options))
// (*XOutput, error).
func sdkOperations(client any) []string {
	t := reflect.TypeOf(client)
	ctxType := reflect.TypeFor[context.Context]()
	errType := reflect.TypeFor[error]()
	var names []string
	for i := range t.NumMethod() {
		m := t.Method(i)
		mt := m.Type // the receiver is In(0)
		if mt.NumIn() != 4 || !mt.IsVariadic() || mt.NumOut() != 2 || mt.In(1) != ctxType || mt.Out(1) != errType ||
			mt.In(2).Kind() != reflect.Pointer || mt.In(2).Elem().Name() != m.Name+"Input" ||
			mt.Out(0).Kind() != reflect.Pointer || mt.Out(0).Elem().Name() != m.Name+"Output" {
			continue
		}
		names = append(names, m.Name)
	}
	return names
}

// documentedAnswer is one operation of the section, with the answer it
// documents.
type documentedAnswer struct {
	sts    bool // written "STS `Name`"
	code   string
	status int
}

var (
	// docOperation is an operation name in the table, "STS " before the
	// names of STS operations.
	docOperation = regexp.MustCompile("(STS )?`([A-Za-z]+)`")
	// docAnswer is the answer column: "`Code` (status)".
	docAnswer = regexp.MustCompile("^`([A-Za-z]+)` \\(([0-9]{3})\\)$")
)

// notServedSection reads the table of docs/local.md's "Operations not
// served" section, and the section's text.
func notServedSection(t *testing.T) (map[string]documentedAnswer, string) {
	t.Helper()
	page, err := os.ReadFile(localDoc)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(page), "\n## Operations not served\n")
	if !ok {
		t.Fatalf("%s has no section \"## Operations not served\"", localDoc)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	ops := map[string]documentedAnswer{}
	for line := range strings.SplitSeq(section, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) != 5 || strings.HasPrefix(line, "|---") || strings.TrimSpace(cells[1]) == "area" {
			continue
		}
		m := docAnswer.FindStringSubmatch(strings.TrimSpace(cells[3]))
		if m == nil {
			t.Fatalf("%s: answer %q of row %q: write it as `Code` (status)", localDoc, cells[3], cells[1])
		}
		status, _ := strconv.Atoi(m[2])
		for _, op := range docOperation.FindAllStringSubmatch(cells[2], -1) {
			if _, dup := ops[op[2]]; dup {
				t.Errorf("%s: %s is listed twice", localDoc, op[2])
			}
			ops[op[2]] = documentedAnswer{sts: op[1] != "", code: m[1], status: status}
		}
	}
	if len(ops) == 0 {
		t.Fatalf("%s: the section \"Operations not served\" has no table rows", localDoc)
	}
	return ops, section
}

// skipInputValidation lets a call with an empty input reach the server: the
// SDK would otherwise refuse it for want of required fields.
func skipInputValidation(stack *middleware.Stack) error {
	if _, ok := stack.Initialize.Get("OperationInputValidation"); !ok {
		return nil
	}
	_, err := stack.Initialize.Remove("OperationInputValidation")
	return err
}

// callEmpty calls the client's operation name with an empty input.
func callEmpty(ctx context.Context, client any, name string, option any) error {
	m := reflect.ValueOf(client).MethodByName(name)
	in := reflect.New(m.Type().In(1).Elem())
	out := m.Call([]reflect.Value{reflect.ValueOf(ctx), in, reflect.ValueOf(option)})
	err, _ := out[1].Interface().(error)
	return err
}

// TestUnservedOperationsAreDocumented keeps docs/local.md's list of the
// IAM and STS operations leash local does not serve complete and true:
// every operation of the SDK's IAM and STS clients that the server has no
// operation for is listed, every listed one is an operation of the client
// it is listed under, and each, called through the SDK, gets the answer the
// page gives. The page's line on CloudTrail is checked the same way.
func TestUnservedOperationsAreDocumented(t *testing.T) {
	ctx := context.Background()
	documented, section := notServedSection(t)
	served := localaws.OperationNames()
	e := localtest.Start(t, localaws.Config{})
	clients := map[string]struct {
		client, option any
	}{
		"iam": {e.IAM(nil), func(o *iam.Options) { o.APIOptions = append(o.APIOptions, skipInputValidation) }},
		"sts": {e.STS(nil), func(o *sts.Options) { o.APIOptions = append(o.APIOptions, skipInputValidation) }},
	}

	unserved := 0
	for _, svc := range []string{"iam", "sts"} {
		c := clients[svc]
		sdk := sdkOperations(c.client)
		if len(sdk) < 10 {
			t.Fatalf("found only %d operations on the %s client: %v", len(sdk), svc, sdk)
		}
		for _, name := range sdk {
			doc, listed := documented[name]
			if listed && doc.sts != (svc == "sts") {
				t.Errorf("%s: %s is an operation of %s; write it %q", localDoc, name, strings.ToUpper(svc), map[bool]string{true: "STS `" + name + "`", false: "`" + name + "`"}[svc == "sts"])
			}
			if !served[svc][name] && !listed {
				t.Errorf("%s: leash local does not serve %s %s: add it to \"Operations not served\" with the answer it gets", localDoc, strings.ToUpper(svc), name)
			}
			if listed {
				unserved++
			}
		}
	}
	for name, doc := range documented {
		svc := map[bool]string{true: "sts", false: "iam"}[doc.sts]
		if !slices.Contains(sdkOperations(clients[svc].client), name) {
			t.Errorf("%s lists %s, which is not an operation of the SDK's %s client", localDoc, name, strings.ToUpper(svc))
			continue
		}
		t.Run(strings.ToUpper(svc)+" "+name+" gets "+doc.code, func(t *testing.T) {
			err := callEmpty(ctx, clients[svc].client, name, clients[svc].option)
			wantAnswer(t, err, doc.code, doc.status)
		})
	}
	t.Logf("%d IAM and STS operations not served", unserved)

	t.Run("CloudTrail serves LookupEvents only", func(t *testing.T) {
		const line = "Of CloudTrail, only `LookupEvents` is served; any other CloudTrail operation answers `UnknownOperationException` (400)."
		if !strings.Contains(strings.Join(strings.Fields(section), " "), line) {
			t.Fatalf("%s: the section no longer says %q", localDoc, line)
		}
		ct := cloudtrail.New(cloudtrail.Options{Region: "us-east-1", BaseEndpoint: aws.String(e.URL), Retryer: localtest.Retryer(),
			Credentials: e.Admin.Provider()})
		_, err := ct.DescribeTrails(ctx, &cloudtrail.DescribeTrailsInput{})
		wantAnswer(t, err, "UnknownOperationException", 400)
	})
}

// wantAnswer checks that err is the API error code with HTTP status.
func wantAnswer(t *testing.T, err error, code string, status int) {
	t.Helper()
	var api smithy.APIError
	var resp *awshttp.ResponseError
	if !errors.As(err, &api) || !errors.As(err, &resp) {
		t.Fatalf("err = %v, want %s (%d) from leash local", err, code, status)
	}
	if api.ErrorCode() != code || resp.HTTPStatusCode() != status {
		t.Errorf("answer %s (%d): %s; the page documents %s (%d)", api.ErrorCode(), resp.HTTPStatusCode(), api.ErrorMessage(), code, status)
	}
}
