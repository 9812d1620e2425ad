package fakegcp

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// Compute is a fake of the few Compute Engine v1 REST methods doctor reads
// (cloud.google.com/go/compute/apiv1 is REST-only, so this one is served
// over HTTP/JSON, not gRPC):
//
//   - regions.get      GET /compute/v1/projects/{project}/regions/{region}
//   - projects.get     GET /compute/v1/projects/{project}
//   - subnetworks.get  GET /compute/v1/projects/{project}/regions/{region}/subnetworks/{subnetwork}
//
// The bodies are the API's resources as protojson writes the client's own
// computepb messages (the JSON field names of the REST reference:
// https://cloud.google.com/compute/docs/reference/rest/v1/regions/get,
// .../projects/get, .../subnetworks/get): a Region's and a Project's
// "quotas" are [{metric, limit, usage}] (limit and usage are numbers, as
// Compute serves them), a Subnetwork says "privateIpGoogleAccess".
//
// Simplified: every region name of the form us-central1 exists in every
// project, with DefaultRegionQuotas unless SetRegionQuota changed a metric;
// every subnetwork name exists in every region, with Private Google Access
// on unless SetPrivateGoogleAccess turned it off (the sandbox's network
// lets training pods reach Google APIs privately); no other method, no
// pagination, no authentication unless Refuse makes every call answer 401
// or 403 with Compute's error body.
type Compute struct {
	mu       sync.Mutex
	regions  map[string]map[string]float64 // "project/region" → metric → limit
	usage    map[string]map[string]float64 // "project/region" → metric → usage
	projects map[string]map[string]float64 // project → metric → limit
	pga      map[string]bool               // "project/region/subnetwork" → privateIpGoogleAccess
	refuse   int                           // 0, 401 or 403
	requests map[string]int                // Compute method id → calls
}

// DefaultRegionQuotas are the GPU quotas of every region of the fake (and a
// few others, as a region lists many): enough for the sandbox's pools, so
// doctor finds nothing until a test lowers one.
var DefaultRegionQuotas = map[string]float64{
	"CPUS": 2400, "DISKS_TOTAL_GB": 409600, "INSTANCES": 6000,
	"NVIDIA_H100_GPUS": 256, "PREEMPTIBLE_NVIDIA_H100_GPUS": 256,
	"NVIDIA_H100_MEGA_GPUS": 256, "PREEMPTIBLE_NVIDIA_H100_MEGA_GPUS": 256,
	"NVIDIA_H200_GPUS": 256, "PREEMPTIBLE_NVIDIA_H200_GPUS": 256,
	"NVIDIA_B200_GPUS": 256, "PREEMPTIBLE_NVIDIA_B200_GPUS": 256,
	"NVIDIA_A100_GPUS": 256, "PREEMPTIBLE_NVIDIA_A100_GPUS": 256,
	"NVIDIA_A100_80GB_GPUS": 256, "PREEMPTIBLE_NVIDIA_A100_80GB_GPUS": 256,
	"NVIDIA_L4_GPUS": 256, "PREEMPTIBLE_NVIDIA_L4_GPUS": 256,
	"NVIDIA_T4_GPUS": 256, "PREEMPTIBLE_NVIDIA_T4_GPUS": 256,
}

// DefaultProjectQuotas are every project's global quotas in the fake.
var DefaultProjectQuotas = map[string]float64{"GPUS_ALL_REGIONS": 512, "CPUS_ALL_REGIONS": 4800, "NETWORKS": 15}

func newCompute() *Compute {
	return &Compute{regions: map[string]map[string]float64{}, usage: map[string]map[string]float64{},
		projects: map[string]map[string]float64{}, pga: map[string]bool{}, requests: map[string]int{}}
}

// SetRegionQuota sets the limit of metric in a project's region.
func (c *Compute) SetRegionQuota(project, region, metric string, limit float64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := project + "/" + region
	if c.regions[k] == nil {
		c.regions[k] = maps.Clone(DefaultRegionQuotas)
	}
	c.regions[k][metric] = limit
}

// SetRegionUsage sets what the region reports in use of metric.
func (c *Compute) SetRegionUsage(project, region, metric string, usage float64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := project + "/" + region
	if c.usage[k] == nil {
		c.usage[k] = map[string]float64{}
	}
	c.usage[k][metric] = usage
}

// RemoveRegionQuota drops metric from a region's list (Compute lists only
// the metrics that apply in a region: an accelerator not offered there has
// none).
func (c *Compute) RemoveRegionQuota(project, region, metric string) {
	c.SetRegionQuota(project, region, metric, 0)
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.regions[project+"/"+region], metric)
}

// SetProjectQuota sets the limit of a project's global metric
// (GPUS_ALL_REGIONS).
func (c *Compute) SetProjectQuota(project, metric string, limit float64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.projects[project] == nil {
		c.projects[project] = maps.Clone(DefaultProjectQuotas)
	}
	c.projects[project][metric] = limit
}

// ResetQuotas restores every default.
func (c *Compute) ResetQuotas() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.regions)
	clear(c.usage)
	clear(c.projects)
}

// SetPrivateGoogleAccess turns a subnetwork's Private Google Access on or
// off.
func (c *Compute) SetPrivateGoogleAccess(project, region, subnetwork string, on bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pga[project+"/"+region+"/"+subnetwork] = on
}

// Refuse makes every call answer code (http.StatusUnauthorized or
// http.StatusForbidden) with Compute's error body, as for an expired token
// or an identity without compute.regions.get; 0 serves again.
func (c *Compute) Refuse(code int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.refuse = code
}

// Requests returns how many calls each method received, by Compute's
// method id ("compute.regions.get", "compute.projects.get",
// "compute.subnetworks.get").
func (c *Compute) Requests() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.requests)
}

// ResetRequests clears the counters.
func (c *Compute) ResetRequests() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.requests)
}

// SetQuotas applies a list such as
// "us-central1/PREEMPTIBLE_NVIDIA_H100_GPUS=16,global/GPUS_ALL_REGIONS=64"
// to project: REGION/METRIC=LIMIT, "global" for the project's own quotas
// (the sandbox's MLPLATFORM_SANDBOX_GPU_QUOTAS).
func (c *Compute) SetQuotas(project, list string) error {
	for item := range strings.SplitSeq(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		where, limit, ok := strings.Cut(item, "=")
		region, metric, ok2 := strings.Cut(where, "/")
		n, err := strconv.ParseFloat(limit, 64)
		if !ok || !ok2 || err != nil || n < 0 || region == "" || metric == "" {
			return fmt.Errorf("quota %q: want REGION/METRIC=LIMIT (global/METRIC for the project's), e.g. us-central1/PREEMPTIBLE_NVIDIA_H100_GPUS=16", item)
		}
		if region == "global" {
			c.SetProjectQuota(project, metric, n)
		} else {
			c.SetRegionQuota(project, region, metric, n)
		}
	}
	return nil
}

var (
	computeRegionRE  = regexp.MustCompile(`^/compute/v1/projects/([^/]+)/regions/([^/]+)$`)
	computeProjectRE = regexp.MustCompile(`^/compute/v1/projects/([^/]+)$`)
	computeSubnetRE  = regexp.MustCompile(`^/compute/v1/projects/([^/]+)/regions/([^/]+)/subnetworks/([^/]+)$`)
	regionNameRE     = regexp.MustCompile(`^[a-z]+-[a-z]+[0-9]+$`)
)

const computePrefix = "https://www.googleapis.com/compute/v1/"

// ServeHTTP serves the methods above.
func (c *Compute) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var (
		method string
		answer func() (proto.Message, int, string)
	)
	switch p := r.URL.Path; {
	case computeSubnetRE.MatchString(p):
		m := computeSubnetRE.FindStringSubmatch(p)
		method, answer = "compute.subnetworks.get", func() (proto.Message, int, string) { return c.subnetwork(m[1], m[2], m[3]) }
	case computeRegionRE.MatchString(p):
		m := computeRegionRE.FindStringSubmatch(p)
		method, answer = "compute.regions.get", func() (proto.Message, int, string) { return c.region(m[1], m[2]) }
	case computeProjectRE.MatchString(p):
		m := computeProjectRE.FindStringSubmatch(p)
		method, answer = "compute.projects.get", func() (proto.Message, int, string) { return c.project(m[1]) }
	default:
		writeComputeError(w, http.StatusNotFound, "notFound", fmt.Sprintf("The requested URL %s was not found on this server.", p))
		return
	}
	c.mu.Lock()
	c.requests[method]++
	refuse := c.refuse
	c.mu.Unlock()
	if r.Method != http.MethodGet {
		writeComputeError(w, http.StatusMethodNotAllowed, "httpMethodNotAllowed", "The fake serves GET only.")
		return
	}
	switch refuse {
	case http.StatusUnauthorized:
		// Google's answer to an expired or revoked access token.
		writeComputeErrorBody(w, refuse, map[string]any{
			"code": refuse,
			"message": "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid " +
				"authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.",
			"errors": []map[string]string{{"message": "Invalid Credentials", "domain": "global", "reason": "authError",
				"location": "Authorization", "locationType": "header"}},
			"status": "UNAUTHENTICATED",
		})
		return
	case http.StatusForbidden:
		resource := strings.TrimPrefix(r.URL.Path, "/compute/v1/")
		msg := fmt.Sprintf("Required '%s' permission for '%s'", method, resource)
		writeComputeErrorBody(w, refuse, map[string]any{
			"code": refuse, "message": msg,
			"errors": []map[string]string{{"message": msg, "domain": "global", "reason": "forbidden"}},
		})
		return
	}
	msg, code, why := answer()
	if msg == nil {
		writeComputeError(w, code, "notFound", why)
		return
	}
	b, err := protojson.Marshal(msg)
	if err != nil {
		writeComputeError(w, http.StatusInternalServerError, "backendError", err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	_, _ = w.Write(b)
}

func quotas(limits, usage map[string]float64, owner string) []*computepb.Quota {
	var out []*computepb.Quota
	for _, m := range slices.Sorted(maps.Keys(limits)) {
		q := &computepb.Quota{Metric: proto.String(m), Limit: proto.Float64(limits[m]), Usage: proto.Float64(usage[m])}
		if owner != "" {
			q.Owner = proto.String(owner)
		}
		out = append(out, q)
	}
	return out
}

func (c *Compute) region(project, region string) (proto.Message, int, string) {
	if !regionNameRE.MatchString(region) {
		return nil, http.StatusNotFound, fmt.Sprintf("The resource 'projects/%s/regions/%s' was not found", project, region)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	limits := c.regions[project+"/"+region]
	if limits == nil {
		limits = DefaultRegionQuotas
	}
	var zones []string
	for _, z := range []string{"a", "b", "c", "f"} {
		zones = append(zones, computePrefix+"projects/"+project+"/zones/"+region+"-"+z)
	}
	return &computepb.Region{
		Kind: proto.String("compute#region"), Id: proto.Uint64(1000 + uint64(len(region))), Name: proto.String(region),
		Description: proto.String(region), Status: proto.String("UP"), Zones: zones,
		SelfLink: proto.String(computePrefix + "projects/" + project + "/regions/" + region),
		Quotas:   quotas(limits, c.usage[project+"/"+region], ""),
	}, 0, ""
}

func (c *Compute) project(project string) (proto.Message, int, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	limits := c.projects[project]
	if limits == nil {
		limits = DefaultProjectQuotas
	}
	return &computepb.Project{
		Kind: proto.String("compute#project"), Id: proto.Uint64(uint64(len(project)) * 7919), Name: proto.String(project),
		SelfLink: proto.String(computePrefix + "projects/" + project),
		Quotas:   quotas(limits, nil, ""),
	}, 0, ""
}

func (c *Compute) subnetwork(project, region, name string) (proto.Message, int, string) {
	if !regionNameRE.MatchString(region) {
		return nil, http.StatusNotFound, fmt.Sprintf("The resource 'projects/%s/regions/%s' was not found", project, region)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	on, set := c.pga[project+"/"+region+"/"+name]
	if !set {
		on = true
	}
	return &computepb.Subnetwork{
		Kind: proto.String("compute#subnetwork"), Name: proto.String(name), Id: proto.Uint64(uint64(len(name)) * 104729),
		Network:               proto.String(computePrefix + "projects/" + project + "/global/networks/default"),
		Region:                proto.String(computePrefix + "projects/" + project + "/regions/" + region),
		IpCidrRange:           proto.String("10.128.0.0/20"),
		GatewayAddress:        proto.String("10.128.0.1"),
		PrivateIpGoogleAccess: proto.Bool(on),
		SelfLink:              proto.String(computePrefix + "projects/" + project + "/regions/" + region + "/subnetworks/" + name),
	}, 0, ""
}

func writeComputeError(w http.ResponseWriter, code int, reason, msg string) {
	writeComputeErrorBody(w, code, map[string]any{
		"code": code, "message": msg,
		"errors": []map[string]string{{"message": msg, "domain": "global", "reason": reason}},
	})
}

// writeComputeErrorBody writes Google's JSON error envelope
// ({"error": {code, message, errors[{message, domain, reason}]}}), which the
// client turns into a *googleapi.Error with that code.
func writeComputeErrorBody(w http.ResponseWriter, code int, body map[string]any) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": body})
}
