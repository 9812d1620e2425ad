package kube

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/retry"
)

// answers is a RoundTripper that answers each request with the next canned
// response (status, body) and records the bodies it was sent. It stands in
// for the network below the transport under test, not for client-go.
type answers struct {
	replies []reply
	sent    []string
}

type reply struct {
	code int
	body string
}

func (a *answers) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
	}
	a.sent = append(a.sent, req.Method+" "+req.URL.Path+" "+string(body))
	r := a.replies[0]
	if len(a.replies) > 1 {
		a.replies = a.replies[1:]
	}
	return &http.Response{StatusCode: r.code, Body: &liveBody{ctx: req.Context(), r: strings.NewReader(r.body)}, Header: http.Header{}, Request: req}, nil
}

// liveBody is a response body as net/http's is: it can be read only while
// its request's context lives (client-go reads it after the round trip).
type liveBody struct {
	ctx context.Context
	r   io.Reader
}

func (b *liveBody) Read(p []byte) (int, error) {
	if err := b.ctx.Err(); err != nil {
		return 0, err
	}
	return b.r.Read(p)
}

func (b *liveBody) Close() error { return nil }

func status(code int, reason, msg string) string {
	return `{"kind":"Status","apiVersion":"v1","status":"Failure","code":` + strconv.Itoa(code) + `,"reason":"` + reason + `","message":"` + msg + `"}`
}

const webhookDown = `Internal error occurred: failed calling webhook \"vclusterqueue.kb.io\": failed to call webhook: Post \"https://127.0.0.1:9443/validate\": dial tcp 127.0.0.1:9443: connect: connection refused`

func TestTransientTransport(t *testing.T) {
	t.Parallel()
	ok := reply{200, `{"kind":"ClusterQueue"}`}
	cases := map[string]struct {
		replies   []reply
		wantCalls int
		wantCode  int  // status of the response returned; 0 = an error
		wantGave  bool // a *retry.Error after the bound
	}{
		"webhook not answering, then fine": {replies: []reply{{500, status(500, "InternalError", webhookDown)}, ok}, wantCalls: 2, wantCode: 200},
		"503, then fine":                   {replies: []reply{{503, status(503, "ServiceUnavailable", "etcd is down")}, ok}, wantCalls: 2, wantCode: 200},
		"429, then fine":                   {replies: []reply{{429, status(429, "TooManyRequests", "slow down")}, ok}, wantCalls: 2, wantCode: 200},
		"denied by the webhook: final": {replies: []reply{{403, status(403, "Forbidden",
			`admission webhook \"vclusterqueue.kb.io\" denied the request`)}}, wantCalls: 1, wantCode: 403},
		"invalid: final":                     {replies: []reply{{422, status(422, "Invalid", "spec.x: Invalid value")}}, wantCalls: 1, wantCode: 422},
		"an object that is not there: final": {replies: []reply{{404, `{"kind":"Status","status":"Failure","code":404,"reason":"NotFound","details":{"name":"x"},"message":"clusterqueues x not found"}`}}, wantCalls: 1, wantCode: 404},
		"other internal errors: final":       {replies: []reply{{500, status(500, "InternalError", "boom")}}, wantCalls: 1, wantCode: 500},
		"webhook down past the bound":        {replies: []reply{{500, status(500, "InternalError", webhookDown)}}, wantGave: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			next := &answers{replies: tc.replies}
			now := time.Unix(0, 0)
			tr := &transientTransport{next: next, policy: retry.Policy{Bound: 5 * time.Second, Base: time.Second, Max: time.Second,
				Now: func() time.Time { return now }, Sleep: func(_ context.Context, d time.Duration) error { now = now.Add(d); return nil }}}
			body := `{"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"ClusterQueue"}`
			req, _ := http.NewRequest(http.MethodPatch, "https://127.0.0.1:6443/apis/kueue.x-k8s.io/v1beta2/clusterqueues/x", strings.NewReader(body))
			resp, err := tr.RoundTrip(req)
			if tc.wantGave {
				var gave *retry.Error
				if !errors.As(err, &gave) || !apierrors.IsInternalError(err) {
					t.Fatalf("err = %v, want a *retry.Error around the API server's InternalError", err)
				}
				if !strings.Contains(gave.Waiting, "vclusterqueue.kb.io") || gave.Waited > 5*time.Second {
					t.Errorf("waiting %q for %s, want the webhook named, within the bound", gave.Waiting, gave.Waited)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tc.wantCode {
				t.Errorf("status %d, want %d", resp.StatusCode, tc.wantCode)
			}
			if got, err := io.ReadAll(resp.Body); err != nil || len(got) == 0 {
				t.Errorf("the returned response's body cannot be read after the round trip (%d bytes, err=%v)", len(got), err)
			}
			_ = resp.Body.Close()
			if len(next.sent) != tc.wantCalls {
				t.Fatalf("%d requests sent, want %d", len(next.sent), tc.wantCalls)
			}
			for _, s := range next.sent {
				if !strings.HasSuffix(s, body) {
					t.Errorf("request sent as %q: a retry must resend the whole body", s)
				}
			}
		})
	}
}

func TestCRDName(t *testing.T) {
	t.Parallel()
	for path, want := range map[string]string{
		"/apis/kueue.x-k8s.io/v1beta2/clusterqueues/x":               "clusterqueues.kueue.x-k8s.io",
		"/apis/kueue.x-k8s.io/v1beta2/namespaces/team/localqueues/q": "localqueues.kueue.x-k8s.io",
		"/apis/kueue.x-k8s.io/v1beta2/namespaces/team/localqueues":   "localqueues.kueue.x-k8s.io",
		"/apis/kueue.x-k8s.io/v1beta2/clusterqueues":                 "clusterqueues.kueue.x-k8s.io",
		"/api/v1/namespaces/x":                                       "",
		"/apis/batch/v1/namespaces/x/jobs":                           "", // built in, no CRD
	} {
		if got := crdName(path); got != want {
			t.Errorf("crdName(%q) = %q, want %q", path, got, want)
		}
	}
}
