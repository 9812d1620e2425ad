package fakegcp_test

import (
	"context"
	"encoding/json"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genproto/googleapis/rpc/code"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
)

// What must differ between the recordings and the fake, in this one place,
// with why. A field with a form must be present on both sides when present
// on one, and the fake's value must have the form real IAM gives it; the
// value itself is not compared. A field without a form exists in REST only
// and is dropped from the recording.
var recordedIgnored = map[string]struct {
	why  string
	form *regexp.Regexp // of the fake's value
}{
	"etag": {"opaque, new on every write; the recordings replace it with a placeholder",
		regexp.MustCompile(`^[A-Za-z0-9+/]+=*$`)}, // base64 bytes
	"uniqueId": {"assigned by IAM; the recordings replace it with a placeholder",
		regexp.MustCompile(`^1[0-9]{20}$`)}, // 21 digits
	"oauth2ClientId": {"assigned by IAM (equal to uniqueId); the recordings replace it with another placeholder",
		regexp.MustCompile(`^1[0-9]{20}$`)},
	"error.errors": {"the legacy v1 REST error list (domain, reason) repeats message; a gRPC status has no such field " +
		"(code, message and status are compared)", nil},
}

// httpCode is the HTTP status the REST mapping of google.rpc.Code gives.
var httpCode = map[codes.Code]int{
	codes.InvalidArgument: 400, codes.FailedPrecondition: 400, codes.OutOfRange: 400,
	codes.Unauthenticated: 401, codes.PermissionDenied: 403, codes.NotFound: 404,
	codes.AlreadyExists: 409, codes.Aborted: 409, codes.ResourceExhausted: 429,
	codes.Canceled: 499, codes.Internal: 500, codes.Unknown: 500, codes.DataLoss: 500,
	codes.Unimplemented: 501, codes.Unavailable: 503, codes.DeadlineExceeded: 504,
}

func asMap(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("unmarshal %s: %v", b, err)
	}
	return m
}

func errorBody(err error) map[string]any {
	s := status.Convert(err)
	return map[string]any{"error": map[string]any{
		"code":    float64(httpCode[s.Code()]),
		"message": s.Message(),
		"status":  code.Code_name[int32(s.Code())],
	}}
}

// normalize replaces each ignored field's value by a marker, after checking
// the fake's value (fake is true) has the real form.
func normalize(t *testing.T, m map[string]any, fake bool) {
	t.Helper()
	for k, v := range m {
		if ig, ok := recordedIgnored[k]; ok && ig.form != nil {
			if s, _ := v.(string); fake && !ig.form.MatchString(s) {
				t.Errorf("%s = %q, want the form %s (%s)", k, s, ig.form, ig.why)
			}
			m[k] = "<" + k + ">"
		}
	}
	if e, ok := m["error"].(map[string]any); ok && !fake {
		delete(e, "errors") // recordedIgnored["error.errors"]
	}
}

func TestRecordedIAM(t *testing.T) {
	t.Parallel()
	total := 0
	for _, rec := range recordings {
		t.Run(rec.path, func(t *testing.T) {
			t.Parallel()
			e := start(t)
			if rec.setup != nil {
				rec.setup(e)
			}
			ctx := context.Background()
			for i, x := range rec.exchanges {
				resp, err := x.send(ctx, e)
				var got map[string]any
				if err != nil {
					got = errorBody(err)
				} else {
					b, merr := protojson.Marshal(resp)
					if merr != nil {
						t.Fatal(merr)
					}
					got = asMap(t, b)
				}
				want := asMap(t, []byte(x.want))
				normalize(t, got, true)
				normalize(t, want, false)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("exchange %d, %s (%s%s): fake differs from the recording (-recorded +fake):\n%s",
						i+1, x.call, recordedPrefix, rec.path, diff)
				}
			}
		})
		total += len(rec.exchanges)
	}
	if total < 10 {
		t.Errorf("%d exchanges, want at least 10", total)
	}
}
