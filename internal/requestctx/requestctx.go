// Package requestctx keeps terraform-plugin-framework from holding on to
// the context of every request it has ever served.
//
// The framework's protocol 6 server (terraform-plugin-framework v1.19.0,
// internal/proto6server/serve.go:24-30, registerContext) wraps each request's
// context in context.WithCancel and appends the CancelFunc to a slice on the
// server, so that StopProvider can cancel requests in flight
// (serve.go:32-46). Nothing else ever removes an entry: the slice is emptied
// only by StopProvider, which Terraform sends only when it is interrupted.
// Each CancelFunc closes over its *context.cancelCtx, and that points at its
// parent, the whole request context: tf6server's per-request logging
// contexts (terraform-plugin-log's copied LoggerOpts and go-hclog loggers,
// tf6server.loggingContext) and gRPC's stream context and state. That is
// about 13 to 17 KB kept alive per request; a plan sends several requests
// per resource, so the provider's live heap grew with the size of the plan
// (11 MB at 61 resources, 37 MB at 511), and with it peak RSS and garbage
// collection time.
//
// Wrap hands the framework, instead of the request context, a small context
// that forwards to the request's context while the request runs and lets go
// of it when the request returns. The framework still registers a
// CancelFunc per request, but what it retains is now a few hundred bytes.
//
// This is one of the provider's workarounds for the framework (the others
// are in resources/, listed in resources/fw_version.go).
//
// Replaces: the framework's own handling of request contexts, as
// providerserver.Serve serves them (main serves requestctx.Wrap of the
// framework's server instead).
//
// Gain: live heap per request served 13 KB → about 100 B (an in-process
// tf6server and gRPC check, TestProviderReleasesRequestContexts in
// retention_test.go); after a 100-team plan the retained heap 37 MB → 9 MB,
// and provider peak RSS N=100/N=10 1.61× → 1.08× (`make bench`, commit
// 2809146).
//
// Targets: terraform-plugin-framework v1.19.0 (CheckedFrameworkVersion:
// serve.go's registerContext as described above) and terraform-plugin-go
// v0.31.0 (CheckedPluginGoVersion: the optional protocol 6 servers in full;
// a server a newer version adds would be hidden by Wrap until it is listed
// and forwarded there). resources.TestFrameworkVersionChecked fails when
// go.mod requires other versions.
//
// Remove when: the framework forgets a request's CancelFunc once the
// request returns. TestRequestContextReleased and
// TestProviderReleasesRequestContexts say so in their logs when the
// unwrapped framework server no longer retains the contexts; then main
// serves providerserver.NewProtocol6 directly and this package goes.
package requestctx

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// The versions this package was checked against (see the package comment).
const (
	CheckedFrameworkVersion = "v1.19.0"
	CheckedPluginGoVersion  = "v0.31.0"
)

// full is what the framework's protocol 6 server implements: the core
// ProviderServer and the optional list resource, action and state store
// servers that tf6server looks for by type assertion.
type full interface {
	tfprotov6.ProviderServer
	tfprotov6.ProviderServerWithListResource //nolint:staticcheck // SA1019: the framework's server implements it today, and Wrap must forward it
	tfprotov6.ProviderServerWithActions      //nolint:staticcheck // SA1019: the framework's server implements it today, and Wrap must forward it
	tfprotov6.ProviderServerWithStateStores  //nolint:staticcheck // SA1019: the framework's server implements it today, and Wrap must forward it
}

// Wrap returns s with every unary request served under a context that is
// released when the request returns. s is returned unchanged when it does
// not implement all the optional protocol 6 servers (the framework's does),
// so that wrapping never changes which RPCs the provider supports.
func Wrap(s tfprotov6.ProviderServer) tfprotov6.ProviderServer {
	f, ok := s.(full)
	if !ok {
		return s
	}
	return server{f}
}

// requestContext is a request's context while the request runs. After
// release it holds no reference to it and behaves as a canceled context
// without values, which is what the request's context is by then too: gRPC
// cancels a stream's context when its handler returns.
type requestContext struct {
	live atomic.Pointer[box]
}

type box struct{ ctx context.Context }

// closed is the Done channel of a released context.
var closed = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

func attach(ctx context.Context) *requestContext {
	c := &requestContext{}
	c.live.Store(&box{ctx})
	return c
}

func (c *requestContext) release() { c.live.Store(nil) }

func (c *requestContext) Deadline() (time.Time, bool) {
	if b := c.live.Load(); b != nil {
		return b.ctx.Deadline()
	}
	return time.Time{}, false
}

// Done returns the request context's channel while the request runs (so a
// context derived from this one is registered with the request's cancelCtx
// and canceled with it, as before), and a closed channel afterwards.
func (c *requestContext) Done() <-chan struct{} {
	if b := c.live.Load(); b != nil {
		return b.ctx.Done()
	}
	return closed
}

func (c *requestContext) Err() error {
	if b := c.live.Load(); b != nil {
		return b.ctx.Err()
	}
	return context.Canceled
}

func (c *requestContext) Value(key any) any {
	if b := c.live.Load(); b != nil {
		return b.ctx.Value(key)
	}
	return nil
}

func (c *requestContext) String() string { return "requestctx.requestContext" }

// serve runs one unary request under a released-on-return context.
func serve[Req, Resp any](ctx context.Context, req Req, f func(context.Context, Req) (Resp, error)) (Resp, error) {
	c := attach(ctx)
	defer c.release()
	return f(c, req)
}

// server wraps every unary RPC. StopProvider passes through (it must reach
// the framework's list of requests to cancel), and so do the streaming RPCs
// (ListResource, InvokeAction, ReadStateBytes, WriteStateBytes), whose
// results use the context after the method has returned; the provider
// implements none of them.
type server struct{ full }

func (s server) GetMetadata(ctx context.Context, req *tfprotov6.GetMetadataRequest) (*tfprotov6.GetMetadataResponse, error) {
	return serve(ctx, req, s.full.GetMetadata)
}

func (s server) GetProviderSchema(ctx context.Context, req *tfprotov6.GetProviderSchemaRequest) (*tfprotov6.GetProviderSchemaResponse, error) {
	return serve(ctx, req, s.full.GetProviderSchema)
}

func (s server) GetResourceIdentitySchemas(ctx context.Context, req *tfprotov6.GetResourceIdentitySchemasRequest) (*tfprotov6.GetResourceIdentitySchemasResponse, error) {
	return serve(ctx, req, s.full.GetResourceIdentitySchemas)
}

func (s server) ValidateProviderConfig(ctx context.Context, req *tfprotov6.ValidateProviderConfigRequest) (*tfprotov6.ValidateProviderConfigResponse, error) {
	return serve(ctx, req, s.full.ValidateProviderConfig)
}

func (s server) ConfigureProvider(ctx context.Context, req *tfprotov6.ConfigureProviderRequest) (*tfprotov6.ConfigureProviderResponse, error) {
	return serve(ctx, req, s.full.ConfigureProvider)
}

func (s server) ValidateResourceConfig(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	return serve(ctx, req, s.full.ValidateResourceConfig)
}

func (s server) UpgradeResourceState(ctx context.Context, req *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, error) {
	return serve(ctx, req, s.full.UpgradeResourceState)
}

func (s server) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	return serve(ctx, req, s.full.ReadResource)
}

func (s server) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	return serve(ctx, req, s.full.PlanResourceChange)
}

func (s server) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	return serve(ctx, req, s.full.ApplyResourceChange)
}

func (s server) ImportResourceState(ctx context.Context, req *tfprotov6.ImportResourceStateRequest) (*tfprotov6.ImportResourceStateResponse, error) {
	return serve(ctx, req, s.full.ImportResourceState)
}

func (s server) MoveResourceState(ctx context.Context, req *tfprotov6.MoveResourceStateRequest) (*tfprotov6.MoveResourceStateResponse, error) {
	return serve(ctx, req, s.full.MoveResourceState)
}

func (s server) UpgradeResourceIdentity(ctx context.Context, req *tfprotov6.UpgradeResourceIdentityRequest) (*tfprotov6.UpgradeResourceIdentityResponse, error) {
	return serve(ctx, req, s.full.UpgradeResourceIdentity)
}

func (s server) GenerateResourceConfig(ctx context.Context, req *tfprotov6.GenerateResourceConfigRequest) (*tfprotov6.GenerateResourceConfigResponse, error) {
	return serve(ctx, req, s.full.GenerateResourceConfig)
}

func (s server) ValidateDataResourceConfig(ctx context.Context, req *tfprotov6.ValidateDataResourceConfigRequest) (*tfprotov6.ValidateDataResourceConfigResponse, error) {
	return serve(ctx, req, s.full.ValidateDataResourceConfig)
}

func (s server) ReadDataSource(ctx context.Context, req *tfprotov6.ReadDataSourceRequest) (*tfprotov6.ReadDataSourceResponse, error) {
	return serve(ctx, req, s.full.ReadDataSource)
}

func (s server) CallFunction(ctx context.Context, req *tfprotov6.CallFunctionRequest) (*tfprotov6.CallFunctionResponse, error) {
	return serve(ctx, req, s.full.CallFunction)
}

func (s server) GetFunctions(ctx context.Context, req *tfprotov6.GetFunctionsRequest) (*tfprotov6.GetFunctionsResponse, error) {
	return serve(ctx, req, s.full.GetFunctions)
}

func (s server) ValidateEphemeralResourceConfig(ctx context.Context, req *tfprotov6.ValidateEphemeralResourceConfigRequest) (*tfprotov6.ValidateEphemeralResourceConfigResponse, error) {
	return serve(ctx, req, s.full.ValidateEphemeralResourceConfig)
}

func (s server) OpenEphemeralResource(ctx context.Context, req *tfprotov6.OpenEphemeralResourceRequest) (*tfprotov6.OpenEphemeralResourceResponse, error) {
	return serve(ctx, req, s.full.OpenEphemeralResource)
}

func (s server) RenewEphemeralResource(ctx context.Context, req *tfprotov6.RenewEphemeralResourceRequest) (*tfprotov6.RenewEphemeralResourceResponse, error) {
	return serve(ctx, req, s.full.RenewEphemeralResource)
}

func (s server) CloseEphemeralResource(ctx context.Context, req *tfprotov6.CloseEphemeralResourceRequest) (*tfprotov6.CloseEphemeralResourceResponse, error) {
	return serve(ctx, req, s.full.CloseEphemeralResource)
}

func (s server) ValidateListResourceConfig(ctx context.Context, req *tfprotov6.ValidateListResourceConfigRequest) (*tfprotov6.ValidateListResourceConfigResponse, error) {
	return serve(ctx, req, s.full.ValidateListResourceConfig)
}

func (s server) ValidateActionConfig(ctx context.Context, req *tfprotov6.ValidateActionConfigRequest) (*tfprotov6.ValidateActionConfigResponse, error) {
	return serve(ctx, req, s.full.ValidateActionConfig)
}

func (s server) PlanAction(ctx context.Context, req *tfprotov6.PlanActionRequest) (*tfprotov6.PlanActionResponse, error) {
	return serve(ctx, req, s.full.PlanAction)
}

func (s server) ValidateStateStoreConfig(ctx context.Context, req *tfprotov6.ValidateStateStoreConfigRequest) (*tfprotov6.ValidateStateStoreConfigResponse, error) {
	return serve(ctx, req, s.full.ValidateStateStoreConfig)
}

func (s server) ConfigureStateStore(ctx context.Context, req *tfprotov6.ConfigureStateStoreRequest) (*tfprotov6.ConfigureStateStoreResponse, error) {
	return serve(ctx, req, s.full.ConfigureStateStore)
}

func (s server) GetStates(ctx context.Context, req *tfprotov6.GetStatesRequest) (*tfprotov6.GetStatesResponse, error) {
	return serve(ctx, req, s.full.GetStates)
}

func (s server) DeleteState(ctx context.Context, req *tfprotov6.DeleteStateRequest) (*tfprotov6.DeleteStateResponse, error) {
	return serve(ctx, req, s.full.DeleteState)
}

func (s server) LockState(ctx context.Context, req *tfprotov6.LockStateRequest) (*tfprotov6.LockStateResponse, error) {
	return serve(ctx, req, s.full.LockState)
}

func (s server) UnlockState(ctx context.Context, req *tfprotov6.UnlockStateRequest) (*tfprotov6.UnlockStateResponse, error) {
	return serve(ctx, req, s.full.UnlockState)
}
