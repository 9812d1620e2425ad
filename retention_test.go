package main

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/hashicorp/go-plugin"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/mlplatform/terraform-provider-mlplatform/provider"
)

// rawCodec sends and receives encoded protobuf messages, so the test can
// speak tfplugin6 (whose generated types are internal to terraform-plugin-go)
// to the real gRPC server.
type rawCodec struct{}

func (rawCodec) Marshal(v any) ([]byte, error) { return *(v.(*[]byte)), nil }
func (rawCodec) Unmarshal(data []byte, v any) error {
	*(v.(*[]byte)) = append([]byte(nil), data...)
	return nil
}
func (rawCodec) Name() string { return "raw" }

// serveInProcess serves factory as main does (tf6server on go-plugin's gRPC
// server; go-plugin's test mode, which listens on a unix socket and hands
// back its address instead of printing it) and returns a client connection.
func serveInProcess(t *testing.T, factory func() tfprotov6.ProviderServer) *grpc.ClientConn {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	reattach := make(chan *plugin.ReattachConfig, 1)
	closed := make(chan struct{})
	go func() { _ = tf6server.Serve(Address, factory, tf6server.WithDebug(ctx, reattach, closed)) }()
	var rc *plugin.ReattachConfig
	select {
	case rc = <-reattach:
	case <-time.After(30 * time.Second):
		cancel()
		t.Fatal("provider server did not start")
	}
	conn, err := grpc.NewClient("unix://"+rc.Addr.String(), grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.ForceCodec(rawCodec{})))
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = conn.Close()
		cancel()
		<-closed
	})
	return conn
}

// upgradeResourceState encodes a tfplugin6 UpgradeResourceState.Request.
func upgradeResourceState(typeName, stateJSON string) []byte {
	var raw []byte
	raw = protowire.AppendTag(raw, 1, protowire.BytesType) // RawState.json
	raw = protowire.AppendBytes(raw, []byte(stateJSON))
	var b []byte
	b = protowire.AppendTag(b, 1, protowire.BytesType) // type_name
	b = protowire.AppendString(b, typeName)
	b = protowire.AppendTag(b, 3, protowire.BytesType) // raw_state
	b = protowire.AppendBytes(b, raw)
	return b
}

func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// retainedPerRequest serves factory, sends n UpgradeResourceState requests
// after a warm-up and returns how much the live heap grew per request.
func retainedPerRequest(t *testing.T, factory func() tfprotov6.ProviderServer, n int) float64 {
	t.Helper()
	conn := serveInProcess(t, factory)
	call := func(method string, req []byte) {
		var resp []byte
		if err := conn.Invoke(context.Background(), "/tfplugin6.Provider/"+method, &req, &resp); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
	}
	call("GetProviderSchema", nil)
	req := upgradeResourceState("mlplatform_cohort", `{"id":"c","name":"c","parent":null,"fair_sharing_weight":null}`)
	for range 200 {
		call("UpgradeResourceState", req)
	}
	before := liveHeap()
	for range n {
		call("UpgradeResourceState", req)
	}
	after := liveHeap()
	return (float64(after) - float64(before)) / float64(n)
}

// The provider's live heap does not grow with the number of requests it has
// served: terraform-plugin-framework keeps a cancel function, and with it the
// whole context, of every request until StopProvider (about 15 KB each,
// tf6server's logging contexts and gRPC's stream state); served through
// serverFactory it keeps a few hundred bytes. Heap is measured, nothing timed.
func TestProviderReleasesRequestContexts(t *testing.T) {
	t.Setenv("TF_LOG_SDK", "OFF") // as quietUnlessShown sets them when Terraform runs the provider
	t.Setenv("TF_LOG_SDK_PROTO", "OFF")
	t.Setenv("TF_LOG_SDK_FRAMEWORK", "OFF")
	t.Setenv("TF_LOG_PROVIDER", "OFF")
	const n = 1500
	const limit = 2 << 10 // bytes per request
	got := retainedPerRequest(t, serverFactory("test"), n)
	t.Logf("serverFactory: %.0f bytes retained per request", got)
	if got > limit {
		t.Errorf("live heap grew %.0f bytes per UpgradeResourceState request served; want at most %d", got, limit)
	}
	// The same measurement of the framework's server as providerserver.Serve
	// serves it shows the retention guarded against (or that it has been
	// fixed upstream, and internal/requestctx is no longer needed).
	if got := retainedPerRequest(t, providerserver.NewProtocol6(provider.New("test")()), n); got < 4*limit {
		t.Logf("unwrapped framework server: live heap grew only %.0f bytes per request; the framework may have stopped retaining request contexts", got)
	} else {
		t.Logf("unwrapped framework server: %.0f bytes retained per request", got)
	}
}
