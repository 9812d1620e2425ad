package resources_test

import (
	"fmt"
	"strings"
)

// A GPU pool is a GKE node pool: its name follows GKE's node pool rule (1
// to 40 lower-case letters, digits and '-', starting with a letter, not
// ending with '-'); zones are zones of the cluster's region (the provider's
// us-central1 here, known only when the plan is made); machine type, GPU
// type and count come from the catalog (a GPU's count is a machine shape,
// but for the T4, whose count on N1 is chosen within the machine's size);
// boot disks are those GKE boots from and the machine series supports;
// node labels and taints are Kubernetes' (the kubelet refuses labels under
// kubernetes.io and k8s.io, GKE and Kubernetes own some keys); resource
// labels are Google Cloud labels (lower case, at most 64, goog-* is
// Google's); the cross-field rules are flex-start's, queued provisioning's,
// reservations' and compact placement's.
func init() {
	l4 := map[string]any{"type": "nvidia-l4", "count": 1}
	flex := func(set map[string]any) map[string]any {
		out := map[string]any{"capacity": "flex_start"}
		for k, v := range set {
			out[k] = v
		}
		return out
	}
	reservation := func(affinity, name string) map[string]any {
		r := map[string]any{"affinity": affinity}
		if name != "" {
			r["name"] = name
		}
		return r
	}
	taint := func(key, value, effect string) map[string]any {
		t := map[string]any{"effect": effect}
		if value != "" {
			t["value"] = value
		}
		return map[string]any{key: t}
	}
	// a100 sets gpu (one GPU of accelType, partitioned, shared) and its
	// machine type; nil leaves partition_size or sharing out.
	a100 := func(accelType, machineType string, partition any, sharing any) map[string]any {
		g := map[string]any{"type": accelType, "count": 1}
		if partition != nil {
			g["partition_size"] = partition
		}
		if sharing != nil {
			g["sharing"] = sharing
		}
		if accelType == "nvidia-h100-mega-80gb" {
			g["count"] = 8
		}
		return map[string]any{"gpu": g, "machine_type": machineType}
	}
	// gpuOn sets gpu (count × accelType, partitioned when partition is not
	// nil) and machine_type (left out when nil), with a disk of GKE's
	// default type: the valid configuration's pd-balanced does not boot A3
	// Ultra or A4.
	gpuOn := func(accelType string, count int, machineType, partition any) map[string]any {
		g := map[string]any{"type": accelType, "count": count}
		if partition != nil {
			g["partition_size"] = partition
		}
		return map[string]any{"gpu": g, "machine_type": machineType, "disk": map[string]any{"size_gb": 200}}
	}
	withPlacement := func(set map[string]any) map[string]any {
		set["placement"] = "compact"
		return set
	}
	withDisk := func(set map[string]any, diskType string) map[string]any {
		set["disk"] = map[string]any{"size_gb": 200, "type": diskType}
		return set
	}
	share := func(strategy string, clients int) map[string]any {
		return map[string]any{"strategy": strategy, "max_shared_clients_per_gpu": clients}
	}
	manyLabels := map[string]any{}
	for i := range 60 { // + 3 cost labels + the marker + the creation id = 65
		manyLabels[fmt.Sprintf("label-%02d", i)] = "x"
	}
	longLabels := map[string]any{}
	for i := range 13 { // 13 × (19 + 60) = 1027 characters
		longLabels[fmt.Sprintf("example.com/label-%d", i%10)+strings.Repeat("x", i/10)] = strings.Repeat("v", 60)
	}
	badInputs["mlplatform_gpu_pool"] = badInput{
		valid: map[string]any{"name": "l4-spot", "machine_type": "g2-standard-8", "gpu": l4, "capacity": "spot",
			"autoscaling": map[string]any{"max_nodes": 4}, "node_locations": []any{"us-central1-a", "us-central1-b"},
			"labels": map[string]any{"team": "vision"}, "taints": taint("example.com/dedicated", "vision", "NoSchedule"),
			"resource_labels": map[string]any{"cost-center": "ml-123"}, "disk": map[string]any{"size_gb": 200, "type": "pd-balanced"},
			"service_account": "gpu-nodes@mlplatform-sandbox.iam.gserviceaccount.com"},
		cases: map[string]badCase{
			// name: GKE node pool names.
			"name with upper case":       {set: map[string]any{"name": "L4-Spot"}, path: "name", want: `(?s)Invalid Node Pool Name.*upper-case.*"l4-spot"`},
			"name with an underscore":    {set: map[string]any{"name": "l4_spot"}, path: "name", want: `(?s)Invalid Node Pool Name.*contains '_'.*"l4-spot"`},
			"name of 41 characters":      {set: map[string]any{"name": "l" + strings.Repeat("4", 40)}, path: "name", want: `(?s)41 characters long; the limit is 40`},
			"name starting with digit":   {set: map[string]any{"name": "4l-spot"}, path: "name", want: `(?s)starts with '4'; begin with a letter`},
			"name ending with a dash":    {set: map[string]any{"name": "l4-spot-"}, path: "name", want: `(?s)ends with '-'`},
			"name empty":                 {set: map[string]any{"name": ""}, path: "name", want: `(?s)Missing Name.*e\.g\. "l4-spot"`},
			"project empty":              {set: map[string]any{"project": ""}, path: "project", want: `(?s)Empty Project.*(?i:leave) it out`},
			"project with upper case":    {set: map[string]any{"project": "ML-Training"}, path: "project", want: `(?s)Invalid Project.*upper-case`},
			"project too short":          {set: map[string]any{"project": "ml"}, path: "project", want: `(?s)Invalid Project.*6 to 30`},
			"location empty":             {set: map[string]any{"location": ""}, path: "location", want: `(?s)Empty Location`},
			"location not a region":      {set: map[string]any{"location": "central"}, path: "location", want: `(?s)Invalid Location.*neither a region nor a zone.*"us-central1"`},
			"cluster empty":              {set: map[string]any{"cluster": ""}, path: "cluster", want: `(?s)Empty Cluster`},
			"cluster with an underscore": {set: map[string]any{"cluster": "ml_training"}, path: "cluster", want: `(?s)Invalid Cluster Name.*'_'.*"ml-training"`},

			// node_locations: zones of the cluster's region.
			"no zones":                  {set: map[string]any{"node_locations": []any{}}, path: "node_locations", want: `(?s)No Zones.*(?i:leave) node_locations out`},
			"a region for a zone":       {set: map[string]any{"node_locations": []any{"us-central1"}}, path: "node_locations", want: `(?s)Invalid Zone.*it is a region.*"us-central1-a"`},
			"zone in upper case":        {set: map[string]any{"node_locations": []any{"US-CENTRAL1-A"}}, path: "node_locations", want: `(?s)Invalid Zone.*upper-case.*"us-central1-a"`},
			"zone not a zone":           {set: map[string]any{"node_locations": []any{"uscentral1a"}}, path: "node_locations", want: `(?s)Invalid Zone.*a zone is a region, '-' and a letter`},
			"zone of another region":    {set: map[string]any{"node_locations": []any{"europe-west4-a"}}, path: "node_locations", want: `(?s)Zone Outside The Cluster's Region.*"us-central1".*"us-central1-a"`},
			"zone outside set region":   {set: map[string]any{"location": "europe-west4"}, path: "node_locations", want: `(?s)Zone Outside The Cluster's Region.*"europe-west4"`},
			"zone outside zonal region": {set: map[string]any{"location": "us-east1-b", "node_locations": []any{"us-central1-a"}}, path: "node_locations", want: `(?s)Zone Outside.*region "us-east1"`},

			// machine_type and gpu: the catalog.
			"machine type empty": {set: map[string]any{"machine_type": ""}, path: "machine_type", want: `(?s)Machine Type Needed`},
			"machine type empty, one fits": {set: map[string]any{"machine_type": "", "gpu": map[string]any{"type": "nvidia-h100-80gb", "count": 8}},
				path: "machine_type", want: `(?s)Empty Machine Type.*a3-highgpu-8g`},
			"machine type of other gpu": {set: map[string]any{"machine_type": "a3-highgpu-8g"}, path: "machine_type", want: `(?s)Machine Type Does Not Match GPU.*carries 8 × nvidia-h100-80gb`},
			"machine type without gpu":  {set: map[string]any{"machine_type": "e2-standard-8"}, path: "machine_type", want: `(?s)does not carry nvidia-l4 GPUs.*g2-standard-4`},
			"machine type upper case":   {set: map[string]any{"machine_type": "G2-Standard-8"}, path: "machine_type", want: `(?s)lower case: "g2-standard-8"`},
			"machine type ambiguous":    {set: map[string]any{"machine_type": nil}, path: "machine_type", want: `(?s)Machine Type Needed.*g2-standard-4`},
			"count the machine lacks":   {set: map[string]any{"gpu": map[string]any{"type": "nvidia-l4", "count": 2}}, path: "machine_type", want: `(?s)carries 1 × nvidia-l4.*g2-standard-24`},
			"unknown gpu type":          {set: map[string]any{"gpu": map[string]any{"type": "nvidia-tesla-k80", "count": 1}}, path: "gpu.type", want: `(?s)Unknown GPU Type.*nvidia-l4`},
			"gpu type in upper case":    {set: map[string]any{"gpu": map[string]any{"type": "NVIDIA-L4", "count": 1}}, path: "gpu.type", want: `(?s)case-sensitive: write "nvidia-l4"`},
			"gpu type empty":            {set: map[string]any{"gpu": map[string]any{"type": "", "count": 1}}, path: "gpu.type", want: `(?s)Unknown GPU Type`},
			"gpu count not offered":     {set: map[string]any{"gpu": map[string]any{"type": "nvidia-l4", "count": 3}}, path: "gpu.count", want: `(?s)GPU Count Not Offered.*1, 2, 4 or 8`},
			"gpu count zero":            {set: map[string]any{"gpu": map[string]any{"type": "nvidia-l4", "count": 0}}, path: "gpu.count", want: `(?s)not 0`},
			"gpu count negative":        {set: map[string]any{"gpu": map[string]any{"type": "nvidia-l4", "count": -1}}, path: "gpu.count", want: `(?s)not -1`},
			"driver unknown":            {set: map[string]any{"gpu": map[string]any{"type": "nvidia-l4", "count": 1, "driver": "newest"}}, path: "gpu.driver", want: `(?s)Invalid GPU Driver.*default, latest, disabled`},
			"driver in upper case":      {set: map[string]any{"gpu": map[string]any{"type": "nvidia-l4", "count": 1, "driver": "Latest"}}, path: "gpu.driver", want: `(?s)write "latest"`},
			"driver empty":              {set: map[string]any{"gpu": map[string]any{"type": "nvidia-l4", "count": 1, "driver": ""}}, path: "gpu.driver", want: `(?s)Empty GPU Driver`},

			// The newer GPUs: H200 on A3 Ultra and B200 on A4 (8 per node,
			// their own MIG sizes, Hyperdisk boot disks), and T4 attached to
			// N1 (the count chosen: 1 or 2 up to 32 vCPUs, 4 up to 96).
			"H200 on A3 High": {set: gpuOn("nvidia-h200-141gb", 8, "a3-highgpu-8g", nil), path: "machine_type",
				want: `(?s)Machine Type Does Not Match GPU.*"a3-highgpu-8g" carries 8 × nvidia-h100-80gb, but gpu asks for 8 × nvidia-h200-141gb\. Use a3-ultragpu-8g`},
			"H200 on A4": {set: gpuOn("nvidia-h200-141gb", 8, "a4-highgpu-8g", nil), path: "machine_type",
				want: `(?s)carries 8 × nvidia-b200.*Use a3-ultragpu-8g`},
			"B200 on A3 Ultra": {set: gpuOn("nvidia-b200", 8, "a3-ultragpu-8g", nil), path: "machine_type",
				want: `(?s)"a3-ultragpu-8g" carries 8 × nvidia-h200-141gb, but gpu asks for 8 × nvidia-b200\. Use a4-highgpu-8g`},
			"one H200":      {set: gpuOn("nvidia-h200-141gb", 1, nil, nil), path: "gpu.count", want: `(?s)GPU Count Not Offered.*nvidia-h200-141gb comes in 8 GPUs per node, not 1`},
			"four B200":     {set: gpuOn("nvidia-b200", 4, nil, nil), path: "gpu.count", want: `(?s)nvidia-b200 comes in 8 GPUs per node, not 4`},
			"B200 in caps":  {set: gpuOn("NVIDIA-B200", 8, nil, nil), path: "gpu.type", want: `(?s)case-sensitive: write "nvidia-b200"`},
			"T4 on G2":      {set: gpuOn("nvidia-tesla-t4", 1, "g2-standard-8", nil), path: "machine_type", want: `(?s)"g2-standard-8" carries 1 × nvidia-l4, but gpu asks for 1 × nvidia-tesla-t4\. Use a machine type that takes 1 × nvidia-tesla-t4, e\.g\. "n1-standard-8" \(T4s attach to N1`},
			"T4 on A2":      {set: gpuOn("nvidia-tesla-t4", 1, "a2-highgpu-1g", nil), path: "machine_type", want: `(?s)carries 1 × nvidia-tesla-a100.*"n1-standard-8"`},
			"T4 on N2":      {set: gpuOn("nvidia-tesla-t4", 2, "n2-standard-8", nil), path: "machine_type", want: `(?s)"n2-standard-8" does not carry nvidia-tesla-t4 GPUs; 2 × nvidia-tesla-t4 come with a machine type that takes 2 × nvidia-tesla-t4, e\.g\. "n1-standard-8"`},
			"three T4":      {set: gpuOn("nvidia-tesla-t4", 3, "n1-standard-8", nil), path: "gpu.count", want: `(?s)GPU Count Not Offered.*nvidia-tesla-t4 comes in 1, 2 or 4 GPUs per node, not 3`},
			"eight T4":      {set: gpuOn("nvidia-tesla-t4", 8, "n1-standard-32", nil), path: "gpu.count", want: `(?s)1, 2 or 4 GPUs per node, not 8`},
			"T4 no machine": {set: gpuOn("nvidia-tesla-t4", 1, nil, nil), path: "machine_type", want: `(?s)Machine Type Needed.*1 × nvidia-tesla-t4 attach to a general-purpose machine type you choose, so set machine_type: T4s attach to N1.*machine_type = "n1-standard-8"`},
			"one T4 on 64 vCPUs": {set: gpuOn("nvidia-tesla-t4", 1, "n1-standard-64", nil), path: "machine_type",
				want: `(?s)"n1-standard-64" takes 4 × nvidia-tesla-t4, not 1\. Set gpu\.count to 4, or use a machine type that takes 1 × nvidia-tesla-t4.*up to 32 vCPUs`},
			"two T4 on 96 vCPUs": {set: gpuOn("nvidia-tesla-t4", 2, "n1-highmem-96", nil), path: "machine_type", want: `(?s)"n1-highmem-96" takes 4 × nvidia-tesla-t4, not 2`},
			"L4 on N1": {set: map[string]any{"machine_type": "n1-standard-8"}, path: "machine_type",
				want: `(?s)"n1-standard-8" takes 1, 2 or 4 × nvidia-tesla-t4, but gpu asks for 1 × nvidia-l4\. Use g2-standard-4`},
			"an H100 size on an H200": {set: gpuOn("nvidia-h200-141gb", 8, nil, "1g.20gb"), path: "gpu.partition_size",
				want: `(?s)Partition Size Not Offered.*nvidia-h200-141gb is partitioned into 1g\.18gb \(7 per GPU\), 1g\.35gb \(4 per GPU\), 2g\.35gb \(3 per GPU\), 3g\.71gb \(2 per GPU\), 7g\.141gb \(1 per GPU\); "1g\.20gb" is not one of them.*a size of nvidia-h100-80gb`},
			"a B200 size on an H200": {set: gpuOn("nvidia-h200-141gb", 8, nil, "1g.23gb"), path: "gpu.partition_size", want: `(?s)"1g\.23gb" is not one of them.*a size of nvidia-b200`},
			"an H200 size on a B200": {set: gpuOn("nvidia-b200", 8, nil, "3g.71gb"), path: "gpu.partition_size",
				want: `(?s)nvidia-b200 is partitioned into 1g\.23gb \(7 per GPU\).*7g\.180gb \(1 per GPU\); "3g\.71gb" is not one of them.*a size of nvidia-h200-141gb`},
			"MIG on a T4":        {set: gpuOn("nvidia-tesla-t4", 1, "n1-standard-8", "1g.5gb"), path: "gpu.partition_size", want: `(?s)GPU Has No MIG Partitions.*nvidia-tesla-t4 cannot be partitioned.*time_sharing`},
			"4g.71gb on an H200": {set: gpuOn("nvidia-h200-141gb", 8, nil, "4g.71gb"), path: "gpu.partition_size", want: `(?s)4g\.71gb gives one partition per GPU.*3 would sit idle.*3g\.71gb \(2 per GPU\)`},
			"4g.90gb on a B200":  {set: gpuOn("nvidia-b200", 8, nil, "4g.90gb"), path: "gpu.partition_size", want: `(?s)4g\.90gb gives one partition per GPU.*7g\.180gb \(1 per GPU\)`},
			"compact flex-start H200 over two zones": {set: flex(withPlacement(gpuOn("nvidia-h200-141gb", 8, nil, nil))), path: "node_locations",
				want: `(?s)Compact Placement Needs One Zone`}, // flex-start with compact placement is GKE's on A3 Ultra: only the zone rule remains
			"compact flex-start on T4": {set: flex(withPlacement(gpuOn("nvidia-tesla-t4", 1, "n1-standard-8", nil))), path: "placement",
				want: `(?s)Compact Placement With Flex-Start.*A3 Ultra, A4 and H4D machines, not on n1-standard-8`},
			"pd-balanced on H200": {set: withDisk(gpuOn("nvidia-h200-141gb", 8, nil, nil), "pd-balanced"), path: "disk.type",
				want: `(?s)A3 Ultra machines \(a3-ultragpu-8g\) do not take pd-balanced disks; use hyperdisk-balanced`},
			"pd-ssd on B200": {set: withDisk(gpuOn("nvidia-b200", 8, "a4-highgpu-8g", nil), "pd-ssd"), path: "disk.type",
				want: `(?s)A4 machines \(a4-highgpu-8g\) do not take pd-ssd disks; use hyperdisk-balanced`},
			"hyperdisk on N1": {set: withDisk(gpuOn("nvidia-tesla-t4", 1, "n1-standard-8", nil), "hyperdisk-balanced"), path: "disk.type",
				want: `(?s)N1 machines \(n1-standard-8\) do not take hyperdisk-balanced disks; use pd-balanced, pd-ssd or pd-standard`},

			// GPU sharing: MIG partition sizes per accelerator, time-sharing and MPS.
			"MIG on an L4":                            {set: a100("nvidia-l4", "g2-standard-8", "1g.5gb", nil), path: "gpu.partition_size", want: `(?s)GPU Has No MIG Partitions.*nvidia-l4 cannot be partitioned.*time_sharing`},
			"MIG on an H100 mega":                     {set: a100("nvidia-h100-mega-80gb", "a3-megagpu-8g", "1g.10gb", nil), path: "gpu.partition_size", want: `(?s)nvidia-h100-mega-80gb cannot be partitioned`},
			"an 80GB size on an A100 40GB":            {set: a100("nvidia-tesla-a100", "a2-highgpu-1g", "1g.10gb", nil), path: "gpu.partition_size", want: `(?s)Partition Size Not Offered.*1g.5gb \(7 per GPU\).*"1g.10gb" is not one of them.*a size of nvidia-h100-80gb, nvidia-a100-80gb`},
			"an H100-only size on an A100 80GB":       {set: a100("nvidia-a100-80gb", "a2-ultragpu-1g", "1g.20gb", nil), path: "gpu.partition_size", want: `(?s)"1g.20gb" is not one of them.*a size of nvidia-h100-80gb`},
			"a 40GB size on an H100":                  {set: a100("nvidia-h100-80gb", "a3-highgpu-1g", "1g.5gb", nil), path: "gpu.partition_size", want: `(?s)nvidia-h100-80gb is partitioned into.*"1g.5gb" is not one of them.*a size of nvidia-tesla-a100`},
			"a 4g size (not offered)":                 {set: a100("nvidia-tesla-a100", "a2-highgpu-1g", "4g.20gb", nil), path: "gpu.partition_size", want: `(?s)4g.20gb gives one partition per GPU.*3 would sit idle`},
			"a size in upper case":                    {set: a100("nvidia-tesla-a100", "a2-highgpu-1g", "1G.5GB", nil), path: "gpu.partition_size", want: `(?s)lower case: set partition_size = "1g.5gb"`},
			"a size that is no size":                  {set: a100("nvidia-tesla-a100", "a2-highgpu-1g", "half", nil), path: "gpu.partition_size", want: `(?s)"half" is not one of them\.$`},
			"partition size empty":                    {set: a100("nvidia-tesla-a100", "a2-highgpu-1g", "", nil), path: "gpu.partition_size", want: `(?s)Empty.*1g.5gb`},
			"sharing strategy spelled like the label": {set: a100("nvidia-l4", "g2-standard-8", nil, share("time-sharing", 4)), path: "gpu.sharing.strategy", want: `(?s)Invalid GPU Sharing Strategy.*set strategy = "time_sharing"`},
			"sharing strategy unknown":                {set: a100("nvidia-l4", "g2-standard-8", nil, share("slicing", 4)), path: "gpu.sharing.strategy", want: `(?s)"slicing" is not one of time_sharing, mps`},
			"sharing strategy in upper case":          {set: a100("nvidia-l4", "g2-standard-8", nil, share("MPS", 4)), path: "gpu.sharing.strategy", want: `(?s)write "mps"`},
			"one shared client":                       {set: a100("nvidia-l4", "g2-standard-8", nil, share("time_sharing", 1)), path: "gpu.sharing.max_shared_clients_per_gpu", want: `(?s)Too Few Shared Clients.*is 1, which is no sharing.*2 to 48`},
			"zero shared clients":                     {set: a100("nvidia-l4", "g2-standard-8", nil, share("mps", 0)), path: "gpu.sharing.max_shared_clients_per_gpu", want: `(?s)is 0, which is no container at all`},
			"49 shared clients":                       {set: a100("nvidia-l4", "g2-standard-8", nil, share("time_sharing", 49)), path: "gpu.sharing.max_shared_clients_per_gpu", want: `(?s)Too Many Shared Clients.*at most 48.*not 49`},
			"MPS on MIG partitions":                   {set: a100("nvidia-tesla-a100", "a2-highgpu-1g", "1g.5gb", share("mps", 2)), path: "gpu.sharing.strategy", want: `(?s)MPS Does Not Combine With MIG.*set strategy = "time_sharing"`},
			"sharing without a strategy":              {set: a100("nvidia-l4", "g2-standard-8", nil, map[string]any{"max_shared_clients_per_gpu": 2}), path: "gpu.sharing.strategy", want: `(?s)Missing Configuration.*strategy`},
			"sharing strategy empty":                  {set: a100("nvidia-l4", "g2-standard-8", nil, share("", 2)), path: "gpu.sharing.strategy", want: `(?s)Empty.*time_sharing`},

			// capacity and reservation.
			"capacity unknown":       {set: map[string]any{"capacity": "preemptible"}, path: "capacity", want: `(?s)Invalid Capacity.*on_demand, spot, flex_start, reservation`},
			"capacity in upper case": {set: map[string]any{"capacity": "Spot"}, path: "capacity", want: `(?s)write "spot"`},
			"capacity empty":         {set: map[string]any{"capacity": ""}, path: "capacity", want: `(?s)Invalid Capacity.*empty.*on_demand`},
			"reservation missing":    {set: map[string]any{"capacity": "reservation"}, path: "reservation", want: `(?s)Reservation Missing`},
			"reservation block on an H100 pool": {set: map[string]any{"capacity": "reservation", "reservation": reservation("specific", "h100-res/reservationBlocks/block-1"),
				"node_locations": []any{"us-central1-a"}, "gpu": map[string]any{"type": "nvidia-h100-80gb", "count": 8}, "machine_type": "a3-highgpu-8g", "disk": map[string]any{"size_gb": 200}},
				path: "reservation.name", want: `(?s)Reservation Block On Another Machine.*only A3 Ultra \(a3-ultragpu-8g, H200\) and A4`},
			"reservation block in two zones": {set: func() map[string]any {
				m := gpuOn("nvidia-h200-141gb", 8, "a3-ultragpu-8g", nil)
				m["capacity"], m["reservation"] = "reservation", reservation("specific", "h200-res/reservationBlocks/block-1")
				return m // the valid configuration's two zones
			}(), path: "node_locations", want: `(?s)Reservation Block Needs One Zone.*set node_locations to the block's zone.*it has 2`},
			"reservation block with any affinity": {set: func() map[string]any {
				m := gpuOn("nvidia-b200", 8, "a4-highgpu-8g", nil)
				m["capacity"], m["reservation"], m["node_locations"] = "reservation", reservation("any", "b200-res/reservationBlocks/block-1"), []any{"us-central1-b"}
				return m
			}(), path: "reservation.name", want: `(?s)Reservation Name Without Specific Affinity`},
			"reservation block without a block": {set: map[string]any{"capacity": "reservation", "reservation": reservation("specific", "b200-res/reservationBlocks/")},
				path: "reservation.name", want: `(?s)Invalid Reservation Name`},
			"placement policy without compact": {set: map[string]any{"placement_policy_name": "l4-compact"}, path: "placement_policy_name",
				want: `(?s)Placement Policy Without Compact Placement.*placement = "compact"`},
			"placement policy name with upper case": {set: map[string]any{"placement": "compact", "node_locations": []any{"us-central1-a"}, "placement_policy_name": "L4-Compact"},
				path: "placement_policy_name", want: `(?s)Invalid Placement Policy Name.*"L4-Compact" is not a Compute Engine resource policy name`},
			"placement policy name empty": {set: map[string]any{"placement": "compact", "node_locations": []any{"us-central1-a"}, "placement_policy_name": ""},
				path: "placement_policy_name", want: `(?s)leave it out for a compact placement policy of GKE's own`},
			"reservation with spot":     {set: map[string]any{"reservation": reservation("any", "")}, path: "reservation", want: `(?s)Reservation Without Reservation Capacity.*"spot"`},
			"reservation with flex":     {set: flex(map[string]any{"reservation": reservation("specific", "r1")}), path: "reservation", want: `(?s)Reservation Without Reservation Capacity.*"flex_start"`},
			"reservation affinity none": {set: map[string]any{"capacity": "reservation", "reservation": reservation("none", "")}, path: "reservation.affinity", want: `(?s)Reservation Affinity None`},
			"affinity unknown":          {set: map[string]any{"reservation": reservation("specifc", "r1")}, path: "reservation.affinity", want: `(?s)Invalid Reservation Affinity.*any, specific, none`},
			"affinity empty":            {set: map[string]any{"capacity": "reservation", "reservation": reservation("", "")}, path: "reservation.affinity", want: `(?s)Invalid Reservation Affinity`},
			"specific without name":     {set: map[string]any{"capacity": "reservation", "reservation": reservation("specific", "")}, path: "reservation.name", want: `(?s)Reservation Name Missing.*projects/OWNER_PROJECT/reservations/NAME`},
			"specific with empty name": {set: map[string]any{"capacity": "reservation", "reservation": map[string]any{"affinity": "specific", "name": ""}},
				path: "reservation.name", want: `(?s)Reservation Name Missing`},
			"any with empty name": {set: map[string]any{"capacity": "reservation", "reservation": map[string]any{"affinity": "any", "name": ""}},
				path: "reservation.name", want: `(?s)Empty Reservation Name.*Remove name`},
			"any with a name":           {set: map[string]any{"capacity": "reservation", "reservation": reservation("any", "r1")}, path: "reservation.name", want: `(?s)Reservation Name Without Specific Affinity`},
			"reservation name invalid":  {set: map[string]any{"capacity": "reservation", "reservation": reservation("specific", "H100_Reservation")}, path: "reservation.name", want: `(?s)Invalid Reservation Name.*upper-case.*1 to 63`},
			"reservation name too long": {set: map[string]any{"capacity": "reservation", "reservation": reservation("specific", "r"+strings.Repeat("1", 63))}, path: "reservation.name", want: `(?s)64 characters long; the limit is 63`},
			"shared reservation malformed": {set: map[string]any{"capacity": "reservation", "reservation": reservation("specific", "projects/p/reservation/r1")},
				path: "reservation.name", want: `(?s)Invalid Reservation Name.*projects/PROJECT/reservations/NAME`},
			"shared reservation bad project": {set: map[string]any{"capacity": "reservation", "reservation": reservation("specific", "projects/Owner/reservations/r1")},
				path: "reservation.name", want: `(?s)its project "Owner" is not a project ID`},

			// max_run_duration: flex-start, 10 minutes to 7 days.
			"run duration in days":      {set: flex(map[string]any{"max_run_duration": "7d"}), path: "max_run_duration", want: `(?s)Invalid Duration.*"72h".*"168h"`},
			"run duration empty":        {set: flex(map[string]any{"max_run_duration": ""}), path: "max_run_duration", want: `(?s)Empty Max Run Duration`},
			"run duration zero":         {set: flex(map[string]any{"max_run_duration": "0s"}), path: "max_run_duration", want: `(?s)no time at all`},
			"run duration over 7 days":  {set: flex(map[string]any{"max_run_duration": "200h"}), path: "max_run_duration", want: `(?s)Max Run Duration Out Of Range.*200h is outside`},
			"run duration of 5 minutes": {set: flex(map[string]any{"max_run_duration": "5m"}), path: "max_run_duration", want: `(?s)Out Of Range.*5m is outside`},
			"run duration negative":     {set: flex(map[string]any{"max_run_duration": "-1h"}), path: "max_run_duration", want: `(?s)Out Of Range`},
			"run duration without flex": {set: map[string]any{"max_run_duration": "24h"}, path: "max_run_duration", want: `(?s)Max Run Duration Needs Flex-Start.*"spot"`},
			"queued without flex":       {set: map[string]any{"queued_provisioning": true}, path: "queued_provisioning", want: `(?s)Queued Provisioning Needs Flex-Start`},

			// autoscaling: GKE's bounds.
			"max nodes zero":          {set: map[string]any{"autoscaling": map[string]any{"max_nodes": 0}}, path: "autoscaling.max_nodes", want: `(?s)Max Nodes Below One`},
			"max zero min zero":       {set: map[string]any{"autoscaling": map[string]any{"min_nodes": 0, "max_nodes": 0}}, path: "autoscaling.max_nodes", want: `(?s)Max Nodes Below One`},
			"max nodes negative":      {set: map[string]any{"autoscaling": map[string]any{"min_nodes": 2, "max_nodes": -1}}, path: "autoscaling.max_nodes", want: `(?s)max_nodes is -1`},
			"min nodes negative":      {set: map[string]any{"autoscaling": map[string]any{"min_nodes": -1, "max_nodes": 4}}, path: "autoscaling.min_nodes", want: `(?s)Negative Min Nodes`},
			"min above max":           {set: map[string]any{"autoscaling": map[string]any{"min_nodes": 5, "max_nodes": 4}}, path: "autoscaling.min_nodes", want: `(?s)Min Nodes Above Max Nodes`},
			"flex with min nodes":     {set: flex(map[string]any{"autoscaling": map[string]any{"min_nodes": 1, "max_nodes": 4}}), path: "autoscaling.min_nodes", want: `(?s)Flex-Start Pools Scale From Zero`},
			"over 1,000 per zone":     {set: map[string]any{"autoscaling": map[string]any{"max_nodes": 2001}}, path: "autoscaling.max_nodes", want: `(?s)Max Nodes Above GKE's Limit.*1000 nodes per node pool in each zone.*at most 2000`},
			"location policy":         {set: map[string]any{"autoscaling": map[string]any{"max_nodes": 4, "location_policy": "fastest"}}, path: "autoscaling.location_policy", want: `(?s)Invalid Location Policy.*balanced, any`},
			"location policy case":    {set: map[string]any{"autoscaling": map[string]any{"max_nodes": 4, "location_policy": "ANY"}}, path: "autoscaling.location_policy", want: `(?s)write "any"`},
			"location policy empty":   {set: map[string]any{"autoscaling": map[string]any{"max_nodes": 4, "location_policy": ""}}, path: "autoscaling.location_policy", want: `(?s)Empty Location Policy`},
			"placement unknown":       {set: map[string]any{"placement": "spread"}, path: "placement", want: `(?s)Invalid Placement.*compact`},
			"placement in upper case": {set: map[string]any{"placement": "COMPACT", "node_locations": []any{"us-central1-a"}}, path: "placement", want: `(?s)write "compact"`},
			"placement empty":         {set: map[string]any{"placement": ""}, path: "placement", want: `(?s)Empty Placement`},
			"compact over two zones":  {set: map[string]any{"placement": "compact"}, path: "node_locations", want: `(?s)Compact Placement Needs One Zone.*lists 2.*\["us-central1-a"\]`},
			"compact with queued": {set: flex(map[string]any{"placement": "compact", "queued_provisioning": true, "node_locations": []any{"us-central1-a"}}),
				path: "placement", want: `(?s)Compact Placement With Queued\s+Provisioning`},
			"compact with queued over two zones": {set: flex(map[string]any{"placement": "compact", "queued_provisioning": true}),
				path: "placement", want: `(?s)Compact Placement With Queued\s+Provisioning`},
			"compact with flex-start": {set: flex(map[string]any{"placement": "compact", "node_locations": []any{"us-central1-a"}}),
				path: "placement", want: `(?s)Compact Placement With Flex-Start.*A3 Ultra.*g2-standard-8`},

			// labels: Kubernetes node labels.
			"label key with a space":   {set: map[string]any{"labels": map[string]any{"cost center": "x"}}, path: `labels["cost center"]`, want: `(?s)Invalid Label Key.*a space`},
			"label value with a space": {set: map[string]any{"labels": map[string]any{"team": "computer vision"}}, path: `labels["team"]`, want: `(?s)Invalid Label Value.*a space`},
			"label GKE sets":           {set: map[string]any{"labels": map[string]any{"cloud.google.com/gke-spot": "true"}}, path: `labels["cloud.google.com/gke-spot"]`, want: `(?s)Reserved Node Label.*node_selector`},
			"label the kubelet sets":   {set: map[string]any{"labels": map[string]any{"kubernetes.io/hostname": "n1"}}, path: `labels["kubernetes.io/hostname"]`, want: `(?s)Node Label Set By Kubernetes`},
			"a node-role label":        {set: map[string]any{"labels": map[string]any{"node-role.kubernetes.io/gpu": ""}}, path: `labels["node-role.kubernetes.io/gpu"]`, want: `(?s)Reserved Node Label.*never join.*"example.com/gpu"`},
			"a k8s.io label":           {set: map[string]any{"labels": map[string]any{"k8s.io/team": "x"}}, path: `labels["k8s.io/team"]`, want: `(?s)Reserved Node Label`},
			"labels over 1024 chars":   {set: map[string]any{"labels": longLabels}, path: "labels", want: `(?s)Node Labels Too Long.*1024`},

			// taints.
			"GPU taint":            {set: map[string]any{"taints": taint("nvidia.com/gpu", "present", "NoSchedule")}, path: `taints["nvidia.com/gpu"]`, want: `(?s)GPU Taint Is Added By GKE`},
			"queued taint":         {set: map[string]any{"taints": taint("cloud.google.com/gke-queued", "true", "NoSchedule")}, path: `taints["cloud.google.com/gke-queued"]`, want: `(?s)Queued Taint Is Added By GKE`},
			"node condition taint": {set: map[string]any{"taints": taint("node.kubernetes.io/unschedulable", "", "NoSchedule")}, path: `taints["node.kubernetes.io/unschedulable"]`, want: `(?s)Taint Managed By Kubernetes`},
			"taint key invalid":    {set: map[string]any{"taints": taint("a/b/c", "", "NoSchedule")}, path: `taints["a/b/c"]`, want: `(?s)Invalid Taint Key.*more than one '/'`},
			"taint value invalid":  {set: map[string]any{"taints": taint("dedicated", "computer vision", "NoSchedule")}, path: `taints["dedicated"].value`, want: `(?s)Invalid Taint Value.*a space`},
			"taint value empty": {set: map[string]any{"taints": map[string]any{"dedicated": map[string]any{"value": "", "effect": "NoSchedule"}}},
				path: `taints["dedicated"].value`, want: `(?s)Empty Value.*(?i:leave) value out`},
			"taint effect unknown": {set: map[string]any{"taints": taint("dedicated", "", "NoRun")}, path: `taints["dedicated"].effect`, want: `(?s)Invalid Taint Effect.*NoSchedule, PreferNoSchedule, NoExecute`},
			"taint effect case":    {set: map[string]any{"taints": taint("dedicated", "", "noschedule")}, path: `taints["dedicated"].effect`, want: `(?s)write "NoSchedule"`},

			// resource_labels: Google Cloud labels.
			"resource label upper case":     {set: map[string]any{"resource_labels": map[string]any{"Team": "vision"}}, path: `resource_labels["Team"]`, want: `(?s)Invalid Resource Label Key.*upper-case`},
			"resource label with a space":   {set: map[string]any{"resource_labels": map[string]any{"cost center": "x"}}, path: `resource_labels["cost center"]`, want: `(?s)Invalid Resource Label Key.*a space`},
			"resource label from a digit":   {set: map[string]any{"resource_labels": map[string]any{"1team": "x"}}, path: `resource_labels["1team"]`, want: `(?s)starts with '1'`},
			"resource label with a dot":     {set: map[string]any{"resource_labels": map[string]any{"example.com/team": "x"}}, path: `resource_labels["example.com/team"]`, want: `(?s)contains '\.', '/'`},
			"resource label value":          {set: map[string]any{"resource_labels": map[string]any{"team": "Vision Team"}}, path: `resource_labels["team"]`, want: `(?s)Invalid Resource Label Value.*"vision-team"`},
			"resource label value too long": {set: map[string]any{"resource_labels": map[string]any{"team": strings.Repeat("v", 64)}}, path: `resource_labels["team"]`, want: `(?s)64 characters long; the limit is 63`},
			"goog- resource label":          {set: map[string]any{"resource_labels": map[string]any{"goog-team": "x"}}, path: `resource_labels["goog-team"]`, want: `(?s)Reserved Resource Label.*"team"`},
			"marker resource label":         {set: map[string]any{"resource_labels": map[string]any{"mlplatform-managed-by": "me"}}, path: `resource_labels["mlplatform-managed-by"]`, want: `(?s)Reserved Resource Label`},
			"creation resource label":       {set: map[string]any{"resource_labels": map[string]any{"mlplatform-creation": "x"}}, path: `resource_labels["mlplatform-creation"]`, want: `(?s)Reserved Resource Label`},
			"too many resource labels":      {set: map[string]any{"resource_labels": manyLabels}, path: "resource_labels", want: `(?s)Too Many Resource Labels.*Remove 1`},

			// disk: boot disks GKE and the machine series take.
			"disk too small":            {set: map[string]any{"disk": map[string]any{"size_gb": 5}}, path: "disk.size_gb", want: `(?s)Disk Too Small.*at least 10 GB`},
			"disk size zero":            {set: map[string]any{"disk": map[string]any{"size_gb": 0}}, path: "disk.size_gb", want: `(?s)Disk Too Small.*0 GB`},
			"disk size negative":        {set: map[string]any{"disk": map[string]any{"size_gb": -10}}, path: "disk.size_gb", want: `(?s)Disk Too Small`},
			"disk over 64 TiB":          {set: map[string]any{"disk": map[string]any{"size_gb": 70000}}, path: "disk.size_gb", want: `(?s)Disk Too Large.*64 TiB`},
			"disk type empty":           {set: map[string]any{"disk": map[string]any{"type": ""}}, path: "disk.type", want: `(?s)Empty Disk Type`},
			"disk type unknown":         {set: map[string]any{"disk": map[string]any{"type": "ssd"}}, path: "disk.type", want: `(?s)Invalid Disk Type.*not a boot disk type.*pd-balanced or pd-ssd`},
			"disk type upper case":      {set: map[string]any{"disk": map[string]any{"type": "PD-SSD"}}, path: "disk.type", want: `(?s)lower case: use "pd-ssd"`},
			"hyperdisk that can't boot": {set: map[string]any{"disk": map[string]any{"type": "hyperdisk-ml"}}, path: "disk.type", want: `(?s)cannot be a boot disk`},
			"pd-standard on G2":         {set: map[string]any{"disk": map[string]any{"type": "pd-standard"}}, path: "disk.type", want: `(?s)G2 machines \(g2-standard-8\) do not take pd-standard`},
			"hyperdisk on G2":           {set: map[string]any{"disk": map[string]any{"type": "hyperdisk-balanced"}}, path: "disk.type", want: `(?s)G2 machines.*pd-balanced or pd-ssd`},
			"pd-extreme on G2":          {set: map[string]any{"disk": map[string]any{"type": "pd-extreme"}}, path: "disk.type", want: `(?s)do not take pd-extreme`},
			"pd-standard on H100": {set: map[string]any{"machine_type": nil, "gpu": map[string]any{"type": "nvidia-h100-80gb", "count": 8}, "disk": map[string]any{"type": "pd-standard"}},
				path: "disk.type", want: `(?s)A3 machines \(a3-highgpu-8g\).*hyperdisk-balanced`},

			// service_account: a Google service account's e-mail, or "default".
			"service account empty":    {set: map[string]any{"service_account": ""}, path: "service_account", want: `(?s)Empty Service Account`},
			"a person's e-mail":        {set: map[string]any{"service_account": "alice@example.com"}, path: "service_account", want: `(?s)Invalid Service Account.*"example.com" is not a service account domain`},
			"an account ID, no e-mail": {set: map[string]any{"service_account": "gpu-nodes"}, path: "service_account", want: `(?s)not an e-mail address.*gpu-nodes@PROJECT\.iam\.gserviceaccount\.com`},
			"service account in caps":  {set: map[string]any{"service_account": "GPU-Nodes@p1234567.iam.gserviceaccount.com"}, path: "service_account", want: `(?s)upper-case`},
		},
	}
}
