package requestctx

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"
	"weak"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

type payloadKey struct{}

// testProvider is a framework provider with nothing in it; Configure, when
// configure is set, hands its context over and waits for it to end.
type testProvider struct {
	configure chan context.Context
	seen      chan any
}

func (*testProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "test"
}
func (*testProvider) Schema(context.Context, provider.SchemaRequest, *provider.SchemaResponse) {}
func (p *testProvider) Configure(ctx context.Context, _ provider.ConfigureRequest, _ *provider.ConfigureResponse) {
	if p.seen != nil {
		p.seen <- ctx.Value(payloadKey{})
	}
	if p.configure != nil {
		p.configure <- ctx
		<-ctx.Done()
	}
}
func (*testProvider) Resources(context.Context) []func() resource.Resource       { return nil }
func (*testProvider) DataSources(context.Context) []func() datasource.DataSource { return nil }

// retained reports whether, after the given call with a request context
// carrying a payload has returned, the server still keeps the payload
// reachable.
func retained(t *testing.T, s tfprotov6.ProviderServer, call func(context.Context, tfprotov6.ProviderServer) error) bool {
	t.Helper()
	payload := new([64 << 10]byte)
	w := weak.Make(payload)
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), payloadKey{}, payload))
	if err := call(ctx, s); err != nil {
		t.Fatal(err)
	}
	cancel()                // as gRPC cancels a stream's context when its handler returns
	payload, ctx = nil, nil //nolint:ineffassign // dropped so that only the server could still hold them when the GC runs
	_ = ctx
	runtime.GC()
	runtime.GC()
	runtime.KeepAlive(s)
	return w.Value() != nil
}

var calls = map[string]func(context.Context, tfprotov6.ProviderServer) error{
	"GetMetadata": func(ctx context.Context, s tfprotov6.ProviderServer) error {
		_, err := s.GetMetadata(ctx, &tfprotov6.GetMetadataRequest{})
		return err
	},
	"GetProviderSchema": func(ctx context.Context, s tfprotov6.ProviderServer) error {
		_, err := s.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
		return err
	},
	"ConfigureProvider": func(ctx context.Context, s tfprotov6.ProviderServer) error {
		_, err := s.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{})
		return err
	},
	"ValidateResourceConfig": func(ctx context.Context, s tfprotov6.ProviderServer) error {
		_, err := s.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: "test_none"})
		return err
	},
	"UpgradeResourceState": func(ctx context.Context, s tfprotov6.ProviderServer) error {
		_, err := s.UpgradeResourceState(ctx, &tfprotov6.UpgradeResourceStateRequest{TypeName: "test_none"})
		return err
	},
	"ReadResource": func(ctx context.Context, s tfprotov6.ProviderServer) error {
		_, err := s.ReadResource(ctx, &tfprotov6.ReadResourceRequest{TypeName: "test_none"})
		return err
	},
	"PlanResourceChange": func(ctx context.Context, s tfprotov6.ProviderServer) error {
		_, err := s.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{TypeName: "test_none"})
		return err
	},
	"ApplyResourceChange": func(ctx context.Context, s tfprotov6.ProviderServer) error {
		_, err := s.ApplyResourceChange(ctx, &tfprotov6.ApplyResourceChangeRequest{TypeName: "test_none"})
		return err
	},
	"ReadDataSource": func(ctx context.Context, s tfprotov6.ProviderServer) error {
		_, err := s.ReadDataSource(ctx, &tfprotov6.ReadDataSourceRequest{TypeName: "test_none"})
		return err
	},
}

// The framework keeps every request's context (internal/proto6server
// registerContext) until StopProvider; wrapped, it keeps none of them.
func TestRequestContextReleased(t *testing.T) {
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			framework := providerserver.NewProtocol6(&testProvider{})
			if !retained(t, framework(), call) {
				t.Log("the framework no longer retains request contexts by itself; requestctx.Wrap may no longer be needed")
			}
			if retained(t, Wrap(framework()), call) {
				t.Errorf("%s: the request context is still reachable after the request returned", name)
			}
		})
	}
}

// While a request runs, the framework and the provider see the request's
// context: its values and its cancellation.
func TestRequestContextForwardsWhileRunning(t *testing.T) {
	p := &testProvider{seen: make(chan any, 1)}
	s := Wrap(providerserver.NewProtocol6(p)())
	payload := new(int)
	if _, err := s.ConfigureProvider(context.WithValue(context.Background(), payloadKey{}, payload), &tfprotov6.ConfigureProviderRequest{}); err != nil {
		t.Fatal(err)
	}
	if got := <-p.seen; got != payload {
		t.Errorf("value seen by Configure = %v, want the request's %p", got, payload)
	}

	p = &testProvider{configure: make(chan context.Context, 1)}
	s = Wrap(providerserver.NewProtocol6(p)())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := s.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{})
		done <- err
	}()
	inner := <-p.configure
	deadline, ok := inner.Deadline()
	if ok {
		t.Errorf("Deadline() = %v, true; the request has none", deadline)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("canceling the request's context did not reach Configure")
	}
	if !errors.Is(inner.Err(), context.Canceled) {
		t.Errorf("Err() = %v, want context.Canceled", inner.Err())
	}
}

// StopProvider still cancels requests in flight (the framework's reason for
// keeping their cancel functions).
func TestStopProviderCancelsInFlight(t *testing.T) {
	p := &testProvider{configure: make(chan context.Context, 1)}
	s := Wrap(providerserver.NewProtocol6(p)())
	done := make(chan error, 1)
	go func() {
		_, err := s.ConfigureProvider(context.Background(), &tfprotov6.ConfigureProviderRequest{})
		done <- err
	}()
	inner := <-p.configure
	if _, err := s.StopProvider(context.Background(), &tfprotov6.StopProviderRequest{}); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("StopProvider did not cancel the request in flight")
	}
	if !errors.Is(inner.Err(), context.Canceled) {
		t.Errorf("Err() = %v, want context.Canceled", inner.Err())
	}
}

// After the request, the context it was served under is canceled and empty.
func TestReleasedContext(t *testing.T) {
	payload := new(int)
	c := attach(context.WithValue(context.Background(), payloadKey{}, payload))
	if c.Value(payloadKey{}) != payload || c.Err() != nil || c.Done() != nil {
		t.Fatalf("attached: Value %v, Err %v, Done %v; want the request context's", c.Value(payloadKey{}), c.Err(), c.Done())
	}
	child, cancelChild := context.WithCancel(c)
	defer cancelChild()
	c.release()
	select {
	case <-c.Done():
	default:
		t.Error("Done() not closed after release")
	}
	if !errors.Is(c.Err(), context.Canceled) {
		t.Errorf("Err() = %v after release, want context.Canceled", c.Err())
	}
	if c.Value(payloadKey{}) != nil {
		t.Error("Value() still returns the request's values after release")
	}
	if _, ok := c.Deadline(); ok {
		t.Error("Deadline() set after release")
	}
	_ = child
}

// Wrap keeps every optional protocol 6 server the framework implements, so
// tf6server finds the same RPCs.
func TestWrapKeepsOptionalServers(t *testing.T) {
	s := Wrap(providerserver.NewProtocol6(&testProvider{})())
	if _, ok := s.(server); !ok {
		t.Fatalf("Wrap did not wrap the framework's server (%T)", s)
	}
	if _, ok := s.(tfprotov6.ProviderServerWithListResource); !ok { //nolint:staticcheck // SA1019: what Wrap must keep serving
		t.Error("lost ProviderServerWithListResource")
	}
	if _, ok := s.(tfprotov6.ProviderServerWithActions); !ok { //nolint:staticcheck // SA1019: what Wrap must keep serving
		t.Error("lost ProviderServerWithActions")
	}
	if _, ok := s.(tfprotov6.ProviderServerWithStateStores); !ok { //nolint:staticcheck // SA1019: what Wrap must keep serving
		t.Error("lost ProviderServerWithStateStores")
	}
	var core struct{ tfprotov6.ProviderServer }
	if got := Wrap(core); got != tfprotov6.ProviderServer(core) {
		t.Error("a server without the optional servers should be returned unchanged")
	}
}
