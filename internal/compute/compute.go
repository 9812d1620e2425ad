// Package compute reads what the platform needs of Compute Engine (GPU
// quotas, a subnetwork's Private Google Access) through the official client,
// cloud.google.com/go/compute/apiv1, which speaks REST only.
package compute

import (
	"context"
	"errors"

	computeapi "cloud.google.com/go/compute/apiv1"
	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/api/option"
)

// Client reads regions, projects and subnetworks.
type Client struct {
	regions  *computeapi.RegionsClient
	projects *computeapi.ProjectsClient
	subnets  *computeapi.SubnetworksClient
}

// New builds the three REST clients with opts (option.WithEndpoint takes a
// URL: https://compute.googleapis.com by default, http://127.0.0.1:PORT for
// the local fake).
func New(ctx context.Context, opts ...option.ClientOption) (*Client, error) {
	r, err := computeapi.NewRegionsRESTClient(ctx, opts...)
	if err != nil {
		return nil, err
	}
	p, err := computeapi.NewProjectsRESTClient(ctx, opts...)
	if err != nil {
		return nil, errors.Join(err, r.Close())
	}
	s, err := computeapi.NewSubnetworksRESTClient(ctx, opts...)
	if err != nil {
		return nil, errors.Join(err, r.Close(), p.Close())
	}
	return &Client{regions: r, projects: p, subnets: s}, nil
}

// Region is regions.get: the region with its quotas.
func (c *Client) Region(ctx context.Context, project, region string) (*computepb.Region, error) {
	return c.regions.Get(ctx, &computepb.GetRegionRequest{Project: project, Region: region})
}

// Project is projects.get: the project with its global quotas
// (GPUS_ALL_REGIONS).
func (c *Client) Project(ctx context.Context, project string) (*computepb.Project, error) {
	return c.projects.Get(ctx, &computepb.GetProjectRequest{Project: project})
}

// Subnetwork is subnetworks.get.
func (c *Client) Subnetwork(ctx context.Context, project, region, name string) (*computepb.Subnetwork, error) {
	return c.subnets.Get(ctx, &computepb.GetSubnetworkRequest{Project: project, Region: region, Subnetwork: name})
}

// Close closes the clients.
func (c *Client) Close() error {
	return errors.Join(c.regions.Close(), c.projects.Close(), c.subnets.Close())
}
