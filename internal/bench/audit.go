package bench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Request classifies one request: its verb and what it addressed. Kind is
// the resource (with its API group when it has one, e.g.
// "clusterqueues.kueue.x-k8s.io", and "/subresource"), or for a request that
// names no resource, "discovery" (/api, /apis, ...), "openapi" (/openapi/...)
// or the path itself. For the GKE/IAM fake, Verb is the RPC method and Kind
// the service.
type Request struct{ Verb, Kind string }

func (r Request) String() string { return r.Verb + " " + r.Kind }

// Counts is the number of requests per Request.
type Counts map[Request]int

// Total is the sum of all counts.
func (c Counts) Total() int {
	n := 0
	for _, v := range c {
		n += v
	}
	return n
}

// Discovery is the number of discovery and OpenAPI requests.
func (c Counts) Discovery() int {
	n := 0
	for r, v := range c {
		if r.Kind == "discovery" || r.Kind == "openapi" {
			n += v
		}
	}
	return n
}

// Add adds other's counts to c.
func (c Counts) Add(other Counts) {
	for r, v := range other {
		c[r] += v
	}
}

// Sorted lists the requests, most frequent first, then by name.
func (c Counts) Sorted() []Request {
	out := make([]Request, 0, len(c))
	for r := range c {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		if c[out[i]] != c[out[j]] {
			return c[out[i]] > c[out[j]]
		}
		return out[i].String() < out[j].String()
	})
	return out
}

// auditEvent is the part of a kube-apiserver audit event (audit.k8s.io/v1,
// JSON) that is counted.
type auditEvent struct {
	Stage      string `json:"stage"`
	Verb       string `json:"verb"`
	RequestURI string `json:"requestURI"`
	UserAgent  string `json:"userAgent"`
	ObjectRef  *struct {
		Resource    string `json:"resource"`
		Subresource string `json:"subresource"`
		APIGroup    string `json:"apiGroup"`
	} `json:"objectRef"`
}

// CountAudit counts the ResponseComplete events in an audit log (JSON lines)
// whose user agent starts with userAgentPrefix.
func CountAudit(r io.Reader, userAgentPrefix string) (Counts, error) {
	out := Counts{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	for line := 1; sc.Scan(); line++ {
		b := sc.Bytes()
		if len(b) == 0 || !strings.Contains(string(b), userAgentPrefix) {
			continue
		}
		var ev auditEvent
		if err := json.Unmarshal(b, &ev); err != nil {
			return nil, fmt.Errorf("audit log line %d: %w", line, err)
		}
		if ev.Stage != "ResponseComplete" || !strings.HasPrefix(ev.UserAgent, userAgentPrefix) {
			continue
		}
		out[classify(ev)]++
	}
	return out, sc.Err()
}

func classify(ev auditEvent) Request {
	if ev.ObjectRef != nil && ev.ObjectRef.Resource != "" {
		kind := ev.ObjectRef.Resource
		if ev.ObjectRef.APIGroup != "" {
			kind += "." + ev.ObjectRef.APIGroup
		}
		if ev.ObjectRef.Subresource != "" {
			kind += "/" + ev.ObjectRef.Subresource
		}
		return Request{Verb: ev.Verb, Kind: kind}
	}
	path, _, _ := strings.Cut(ev.RequestURI, "?")
	switch {
	case strings.HasPrefix(path, "/openapi/"):
		return Request{Verb: ev.Verb, Kind: "openapi"}
	case path == "/api" || path == "/apis" || strings.HasPrefix(path, "/api/") || strings.HasPrefix(path, "/apis/"):
		// A request under /api(s) without an objectRef lists resources or
		// versions of a group: discovery.
		return Request{Verb: ev.Verb, Kind: "discovery"}
	}
	return Request{Verb: ev.Verb, Kind: path}
}

// CountRPCs turns the GKE/IAM fake's counters ("/google.container.v1.ClusterManager/GetNodePool" → n)
// into Counts (Verb "GetNodePool", Kind "google.container.v1.ClusterManager").
func CountRPCs(byMethod map[string]int) Counts {
	out := Counts{}
	for m, n := range byMethod {
		svc, method, ok := strings.Cut(strings.TrimPrefix(m, "/"), "/")
		if !ok {
			svc, method = "", m
		}
		out[Request{Verb: method, Kind: svc}] += n
	}
	return out
}
