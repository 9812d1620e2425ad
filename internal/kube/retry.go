package kube

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/retry"
)

// Transient failures of the API server, waited out by the client's transport
// (every request of the typed, Kueue and dynamic clients goes through it):
//
//   - a webhook that could not be called (the API server answers 500 with
//     "failed calling webhook" or "conversion webhook for ... failed"): Kueue
//     installed or upgraded in the same apply, or restarting. A webhook that
//     answers and denies is a 4xx and final;
//   - a CRD that exists but is not yet established (404 for its resource);
//     one that does not exist at all is final (Kueue is not installed);
//   - 429 Too Many Requests and 503 Service Unavailable.
//
// A request that cannot reach the API server at all fails at once: that is
// a wrong endpoint or a cluster that is down, not a moment's unavailability.

// ErrCRDNotEstablished is returned (wrapped in a *retry.Error) when a CRD
// exists but the API server did not establish it within the bound.
var ErrCRDNotEstablished = errors.New("CRD not established")

// maxErrorBody bounds how much of an error response is read to classify it.
const maxErrorBody = 1 << 20

type transientTransport struct {
	next   http.RoundTripper
	policy retry.Policy
}

var webhookName = regexp.MustCompile(`failed calling webhook "([^"]+)"|conversion webhook for ([^ ]+, Kind=[A-Za-z]+)`)

// RoundTrip sends req, resending it while the answer is transient.
func (t *transientTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.policy.Bound <= 0 || (req.Body != nil && req.Body != http.NoBody && req.GetBody == nil) {
		return t.next.RoundTrip(req)
	}
	var resp *http.Response
	fields := map[string]any{"method": req.Method, "path": req.URL.Path}
	first := true
	err := t.policy.Loop(req.Context(), fields, func(ctx context.Context, cancel context.CancelFunc) retry.Attempt {
		r := req
		if !first {
			r = req.Clone(ctx)
			if req.GetBody != nil {
				body, err := req.GetBody()
				if err != nil {
					return retry.Attempt{Err: err}
				}
				r.Body = body
			}
		}
		first = false
		var err error
		resp, err = t.next.RoundTrip(r)
		if err != nil {
			return retry.Attempt{Err: err}
		}
		waiting, failure := t.classify(ctx, r, resp)
		if waiting == "" {
			// The caller reads the body after this returns: the attempt's
			// context (a retry's has a deadline) ends when it closes it.
			resp.Body = &cancelOnClose{ReadCloser: resp.Body, cancel: cancel}
			return retry.Attempt{}
		}
		resp = nil
		return retry.Attempt{Err: failure, Waiting: waiting}
	})
	if err != nil {
		return nil, err
	}
	return resp, nil
}

// cancelOnClose ends a retry's context once its response body is closed.
type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c *cancelOnClose) Close() error {
	err := c.ReadCloser.Close()
	c.cancel()
	return err
}

// classify reads an error response and says what it waits for ("" when the
// response is to be returned as it is, with its body intact); failure is the
// error it stands for.
func (t *transientTransport) classify(ctx context.Context, req *http.Request, resp *http.Response) (waiting string, failure error) {
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusServiceUnavailable, http.StatusInternalServerError, http.StatusNotFound:
	default:
		return "", nil
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	_ = resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return "", nil
	}
	st := decodeStatus(resp, body)
	failure = &apierrors.StatusError{ErrStatus: st}
	switch resp.StatusCode {
	case http.StatusTooManyRequests:
		return "the Kubernetes API server to accept requests again (429 Too Many Requests)", failure
	case http.StatusServiceUnavailable:
		return "the Kubernetes API server to be available again (503 Service Unavailable)", failure
	case http.StatusInternalServerError:
		if m := webhookName.FindStringSubmatch(st.Message); m != nil {
			whose := "the webhook "
			if strings.Contains(st.Message, "kueue") {
				whose = "Kueue's webhook "
			}
			return whose + strings.TrimSpace(m[1]+m[2]) + " to answer (" + webhookCause(st.Message) + ")", failure
		}
		return "", nil
	}
	// 404: for a resource the API server does not serve at all (its answer
	// is no Status of a named object: a bare "404 page not found", or a
	// Status without a name), check whether its CRD exists but is not yet
	// established.
	if st.Details != nil && st.Details.Name != "" {
		return "", nil
	}
	crd := crdName(req.URL.Path)
	if crd == "" {
		return "", nil
	}
	exists, established := t.crdStatus(ctx, req, crd)
	if !exists || established {
		return "", nil
	}
	return "the CRD " + crd + " to be established", fmt.Errorf("%w: %s exists, but the API server does not serve it yet", ErrCRDNotEstablished, crd)
}

func webhookCause(msg string) string {
	for _, c := range []string{"connection refused", "context deadline exceeded", "no endpoints available", "i/o timeout",
		"connection reset", "certificate", "EOF", "not found"} {
		if strings.Contains(msg, c) {
			return c
		}
	}
	return "it could not be called"
}

func decodeStatus(resp *http.Response, body []byte) metav1.Status {
	var st metav1.Status
	if json.Unmarshal(body, &st) == nil && st.Kind == "Status" {
		return st
	}
	return metav1.Status{Status: metav1.StatusFailure, Code: int32(resp.StatusCode), //nolint:gosec // an HTTP status code
		Reason: metav1.StatusReasonUnknown, Message: strings.TrimSpace(string(body))}
}

// crdName is RESOURCE.GROUP for a path /apis/GROUP/VERSION/[namespaces/NS/]RESOURCE[/...], or "".
func crdName(path string) string {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	if len(parts) < 4 || parts[0] != "apis" || !strings.Contains(parts[1], ".") {
		return ""
	}
	group, rest := parts[1], parts[3:]
	if rest[0] == "namespaces" && len(rest) >= 3 {
		rest = rest[2:]
	}
	return rest[0] + "." + group
}

// crdStatus reads the CRD through the same transport chain (so with the
// same credentials), without retries.
func (t *transientTransport) crdStatus(ctx context.Context, req *http.Request, crd string) (exists, established bool) {
	u := *req.URL
	u.Path, u.RawQuery = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"+crd, ""
	creq, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return false, false
	}
	creq.Header = req.Header.Clone()
	creq.Header.Del("Content-Type")
	creq.Header.Set("Accept", "application/json")
	resp, err := t.next.RoundTrip(creq)
	if err != nil {
		return false, false
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return false, false
	}
	var c apiextv1.CustomResourceDefinition
	if json.NewDecoder(io.LimitReader(resp.Body, maxErrorBody)).Decode(&c) != nil {
		return true, true // unreadable: do not wait on a guess
	}
	for _, cond := range c.Status.Conditions {
		if cond.Type == apiextv1.Established {
			return true, cond.Status == apiextv1.ConditionTrue
		}
	}
	return true, false
}
