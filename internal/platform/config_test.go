package platform

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestIsLoopback(t *testing.T) {
	t.Parallel()
	cases := map[string]bool{
		"127.0.0.1:8080": true, "127.9.9.9:1": true, "[::1]:443": true, "localhost:1": true, "LOCALHOST": true,
		"10.0.0.5:443": false, "container.googleapis.com:443": false, "0.0.0.0:80": false, "": false,
		"localhost.evil.example:1": false,
	}
	for in, want := range cases {
		if got := IsLoopback(in); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestConfigValidate(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		cfg  Config
		want []string
	}{
		"secure remote endpoints":   {cfg: Config{ContainerEndpoint: "container.googleapis.com:443"}},
		"insecure sandbox":          {cfg: Config{InsecureEndpoints: true, ContainerEndpoint: "127.0.0.1:9000", IAMEndpoint: "[::1]:9000"}},
		"insecure to remote":        {cfg: Config{InsecureEndpoints: true, ContainerEndpoint: "10.1.2.3:443", IAMEndpoint: "127.0.0.1:1"}, want: []string{"container_endpoint"}},
		"insecure to google's":      {cfg: Config{InsecureEndpoints: true}, want: []string{"insecure_endpoints", "insecure_endpoints"}},
		"insecure with one missing": {cfg: Config{InsecureEndpoints: true, ContainerEndpoint: "127.0.0.1:1"}, want: []string{"insecure_endpoints"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var got []string
			for _, e := range tc.cfg.Validate() {
				got = append(got, e.Path.String())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
