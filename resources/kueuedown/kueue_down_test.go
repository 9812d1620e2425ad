package kueuedown

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
)

// team is one team's namespace, ClusterQueue and LocalQueue.
func team(name string) string {
	return fmt.Sprintf(`
resource "mlplatform_team_namespace" %[1]q {
  name = "acc-down-%[1]s"
  team = %[1]q
}

resource "mlplatform_cluster_queue" %[1]q {
  name               = "acc-down-%[1]s"
  namespace_selector = mlplatform_team_namespace.%[1]s.selector
  resource_groups = [{
    covered_resources = ["cpu"]
    flavors = [{ name = mlplatform_resource_flavor.cpu.name, resources = [{ name = "cpu", nominal_quota = "8" }] }]
  }]
}

resource "mlplatform_local_queue" %[1]q {
  namespace     = mlplatform_team_namespace.%[1]s.name
  name          = "default"
  cluster_queue = mlplatform_cluster_queue.%[1]s.name
}
`, name)
}

// config is the platform with the given teams; retryTimeout, when set, is
// the provider's retry_timeout.
func config(t *testing.T, retryTimeout string, teams ...string) string {
	p := acctest.ProviderConfig(t)
	if retryTimeout != "" {
		p = strings.Replace(p, `provider "mlplatform" {`, `provider "mlplatform" {`+"\n  retry_timeout = "+fmt.Sprintf("%q", retryTimeout), 1)
	}
	p += `
resource "mlplatform_resource_flavor" "cpu" {
  name = "acc-down-cpu"
}
`
	for _, n := range teams {
		p += team(n)
	}
	return p
}

// TestAccApplyRidesOutKueueDown freezes the real Kueue manager (SIGSTOP),
// so its webhooks stop answering, in the middle of applies that add a team:
//   - frozen for 30 s, within the default retry_timeout: the apply waits it
//     out and completes, and the plan after is empty;
//   - frozen for longer than retry_timeout (15 s here): the apply fails
//     within the bound plus 30 s, saying in plain words that Kueue's webhook
//     did not answer and how long it waited, with no orphan (everything it
//     created is in state); once Kueue is back the next apply completes and
//     the plan after is empty.
func TestAccApplyRidesOutKueueDown(t *testing.T) {
	env := acctest.Env(t)
	kueue := env.Processes()["kueue"]
	if kueue == 0 {
		t.Fatal("no Kueue manager in the environment")
	}
	// Kueue is thawed by the last step, or at the latest 2 minutes after it
	// froze: a failed step goes straight to the destroy, which needs Kueue.
	var watchdog *time.Timer
	thaw := func() {
		if watchdog != nil {
			watchdog.Stop()
		}
		if err := syscall.Kill(kueue, syscall.SIGCONT); err != nil {
			t.Error(err)
		}
	}
	freeze := func() {
		if err := syscall.Kill(kueue, syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
		watchdog = time.AfterFunc(2*time.Minute, func() { _ = syscall.Kill(kueue, syscall.SIGCONT) })
	}
	t.Cleanup(thaw)
	core, kq := acctest.Kube(t)
	ctx := context.Background()
	empty := []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}

	const bound = 15 * time.Second
	var started, failed time.Time
	thawed := make(chan struct{})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		Steps: []resource.TestStep{
			{Config: config(t, "", "one"), ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: empty}},
			{ // Kueue freezes once the apply has created team two's namespace, and comes back 30 s later
				PreConfig: func() {
					started = time.Now()
					go func() {
						defer close(thawed)
						for time.Since(started) < 2*time.Minute {
							if _, err := core.CoreV1().Namespaces().Get(ctx, "acc-down-two", metav1.GetOptions{}); err == nil {
								break
							}
							time.Sleep(20 * time.Millisecond)
						}
						_ = syscall.Kill(kueue, syscall.SIGSTOP)
						time.Sleep(30 * time.Second)
						_ = syscall.Kill(kueue, syscall.SIGCONT)
					}()
				},
				Config: config(t, "", "one", "two"),
				Check: func(*terraform.State) error {
					d := time.Since(started) // the apply is done; measured before waiting for the thaw
					<-thawed
					t.Logf("frozen for 30 s: the apply completed %s after it started", d.Round(time.Second))
					if d < 25*time.Second {
						return fmt.Errorf("the apply finished after %s, before Kueue came back: it was not frozen in the middle of it", d)
					}
					return nil
				},
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: empty},
			},
			{ // frozen for longer than the bound
				PreConfig: func() {
					freeze()
					started = time.Now()
				},
				Config:      config(t, bound.String(), "one", "two", "three"),
				ExpectError: wrapped(`(?s)Kueue's admission webhook did not answer.*The provider waited \d+s \(retry_timeout\) for Kueue's webhook \S+ to answer`),
			},
			{ // no orphan: what the failed apply created is in state (read while Kueue is still frozen)
				PreConfig: func() {
					failed = time.Now()
					d := failed.Sub(started)
					t.Logf("frozen past the bound: the apply failed %s after it started (bound %s)", d.Round(time.Second), bound)
					if d > bound+30*time.Second {
						t.Errorf("the apply failed after %s, more than the bound (%s) plus 30 s", d.Round(time.Second), bound)
					}
					if _, err := kq.KueueV1beta2().ClusterQueues().Get(ctx, "acc-down-three", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
						t.Errorf("ClusterQueue acc-down-three exists although its create failed (err=%v)", err)
					}
				},
				RefreshState:       true,
				ExpectNonEmptyPlan: true, // team three's queues are still to be created
				Check: func(s *terraform.State) error {
					if _, err := core.CoreV1().Namespaces().Get(ctx, "acc-down-three", metav1.GetOptions{}); err == nil {
						if s.RootModule().Resources["mlplatform_team_namespace.three"] == nil {
							return fmt.Errorf("namespace acc-down-three exists but is not in state: an orphan")
						}
					}
					if s.RootModule().Resources["mlplatform_cluster_queue.three"] != nil {
						return fmt.Errorf("ClusterQueue three is in state although it was never created")
					}
					return nil
				},
			},
			{ // Kueue is back: the next apply completes
				PreConfig:        thaw,
				Config:           config(t, "", "one", "two", "three"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: empty},
			},
		},
	})
}

// wrapped compiles a pattern whose spaces match any run of white space, as
// Terraform wraps the lines of an error.
func wrapped(pattern string) *regexp.Regexp {
	return regexp.MustCompile(strings.ReplaceAll(pattern, " ", `\s+`))
}
