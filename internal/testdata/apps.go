package testdata

// appNames are the values of the app label, most popular first (pods pick
// them with Zipf weights, see New). The last few are batch workloads and
// run with restartPolicy OnFailure or Never.
var appNames = [...]string{
	"frontend", "checkout", "cart", "payments", "catalog",
	"search", "recommend", "auth", "users", "orders",
	"inventory", "shipping", "notify", "email", "reviews",
	"ads", "currency", "analytics", "reporting", "billing",
	"gateway", "api", "web", "admin", "media",
	"images", "thumbnails", "uploads", "chat", "feed",
	"profile", "settings", "ledger", "fraud", "risk",
	"pricing", "promos", "loyalty", "wishlist", "geo",
	"routing", "tracking", "inference", "features", "metrics",
	"indexer", "batch-etl", "cleanup", "db-backup", "export",
}

// batchApps is how many of the last appNames are batch workloads.
const batchApps = 4

var teams = [...]string{
	"platform", "storefront", "payments", "growth", "search",
	"data", "ml", "identity", "infra", "sre",
	"mobile", "web", "billing", "logistics", "marketing",
	"security", "core", "messaging", "media", "analytics",
}

var tiers = [...]string{"frontend", "backend", "cache"}

type sidecar struct{ name, image string }

var sidecars = [...]sidecar{
	{"envoy", "envoyproxy/envoy:v1.31.2"},
	{"fluent-bit", "fluent/fluent-bit:3.1.9"},
	{"alloy", "grafana/alloy:v1.4.2"},
}

type resources struct{ cpuReq, cpuLim, memReq, memLim string }

type envVar struct{ name, value, fieldPath string }

// appProfile is the pod template of one app: every pod of the app shares
// it, as the pods of one Deployment do.
type appProfile struct {
	index                               int
	name                                string
	teams                               [2]int // most pods carry teams[0]
	containers                          int    // 1..3: the app, then sidecars
	sidecars                            [2]int // indexes into sidecars
	port, metricsPort, patch, grace     int
	scrape, configVolume, priorityClass bool
	liveness, readiness, gpu            bool
	restartPolicy, serviceAccount       string
	probePath, qos                      string
	res                                 [3]resources
	env                                 []envVar
}

func (a *appProfile) containerName(c int) string {
	if c == 0 {
		return a.name
	}
	return sidecars[a.sidecars[c-1]].name
}

var (
	cpuSizes = [...]string{"50m", "100m", "250m", "500m", "1", "2"}
	memSizes = [...]string{"64Mi", "128Mi", "256Mi", "512Mi", "1Gi", "2Gi"}
)

func newAppProfile(key uint64, a int) appProfile {
	h := func(salt uint64) uint64 { return sub(key, salt) }
	p := appProfile{
		index:          a,
		name:           appNames[a],
		teams:          [2]int{a % len(teams), (a*7 + 3) % len(teams)},
		port:           [...]int{8080, 8080, 8443, 3000, 9000, 5000}[h(1)%6],
		metricsPort:    9090,
		patch:          int(h(2) % 10),
		grace:          30,
		restartPolicy:  "Always",
		serviceAccount: "default",
		probePath:      [...]string{"/healthz", "/livez", "/health"}[h(6)%3],
	}
	if h(8)%5 == 0 {
		p.grace = 60
	}
	if a >= len(appNames)-batchApps {
		p.restartPolicy = [...]string{"OnFailure", "Never"}[a%2]
	}
	switch r := h(9) % 100; {
	case r < 55:
		p.containers = 1
	case r < 90:
		p.containers = 2
	default:
		p.containers = 3
	}
	// A sidecar costs about 450 bytes across spec, status and
	// managedFields, so apps with more containers get a leaner main
	// container: that keeps every pod within 2–4 KiB as created
	// (TestPodSize) while the average stays near 3.5 KiB. Three-container
	// apps leave health checking to their mesh sidecar.
	env := 1
	switch p.containers {
	case 1:
		p.scrape = h(3)%10 < 6
		p.configVolume = h(4)%10 < 7
		p.priorityClass = h(5)%10 == 0
		p.liveness, p.readiness = true, true
		p.gpu = h(15)%10 < 2
		env = 2 + int(h(14)%3)
	case 2:
		p.configVolume = h(4)%10 < 4
		p.scrape = !p.configVolume && h(3)%10 < 6
		p.liveness, p.readiness = true, !p.configVolume && h(15)%10 < 7
		env = 1 + int(h(14)%2)
	}
	if p.containers < 3 && h(7)%2 == 0 {
		p.serviceAccount = p.name
	}
	first := int(h(10) % uint64(len(sidecars)))
	p.sidecars = [2]int{first, (first + 1) % len(sidecars)}

	// QoS: 20% Guaranteed (limits == requests), 5% BestEffort (no
	// resources anywhere), the rest Burstable (limits a size or two up).
	cpu, mem := int(h(11)%4), int(h(12)%4)
	qos := h(13) % 100
	if p.containers == 3 {
		qos = 99 // Burstable: limits on every sidecar would not fit
	}
	switch r := qos; {
	case r < 20:
		p.qos = "Guaranteed"
		for c := range p.containers {
			if c > 0 {
				cpu, mem = 0, 0
			}
			p.res[c] = resources{cpuSizes[cpu], cpuSizes[cpu], memSizes[mem], memSizes[mem]}
		}
	case r < 25:
		p.qos = "BestEffort"
	default:
		p.qos = "Burstable"
		p.res[0] = resources{cpuSizes[cpu], cpuSizes[cpu+2], memSizes[mem], memSizes[mem+1]}
		for c := 1; c < p.containers; c++ {
			p.res[c] = resources{cpuReq: "10m", memReq: "32Mi"}
		}
	}

	p.env = []envVar{
		{name: "LOG_LEVEL", value: "info"},
		{name: "POD_NAME", fieldPath: "metadata.name"},
		{name: "SERVICE_NAME", value: p.name},
		{name: "POD_NAMESPACE", fieldPath: "metadata.namespace"},
	}[:env]
	return p
}
