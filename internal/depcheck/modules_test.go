package depcheck

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// deniedModules are the modules a controller embedding the cache must not get: etcd's server and
// what it brings (raft, bbolt, OpenTelemetry, zap, etcd's pin of gRPC). Only source/etcd,
// cmd/watchcache, bench and storagetest, each a module of its own, need them.
var deniedModules = []string{
	"go.etcd.io/",
	"go.opentelemetry.io/",
	"go.uber.org/zap",
	"google.golang.org/grpc",
	"github.com/watchcache/watchcache/source/etcd",
	"k8s.io/apiserver",
}

// maxEmbedModules bounds `go list -m all` of ../embedcheck (78 modules with client-go v0.37.2,
// most of them client-go's own requirements).
const maxEmbedModules = 85

// TestEmbedModules lists the modules of internal/embedcheck, a module that imports only
// watchcache and source/kube, as a controller's module would: outside the workspace (GOWORK=off),
// so that only the requirements of the project's root module reach it.
func TestEmbedModules(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH")
	}
	cmd := exec.Command("go", "list", "-m", "all")
	cmd.Dir = "../embedcheck"
	cmd.Env = append(os.Environ(), "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list -m all in internal/embedcheck: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	for _, l := range lines {
		mod := strings.Fields(l)[0]
		for _, bad := range deniedModules {
			if strings.HasPrefix(mod, bad) {
				t.Errorf("a module importing only watchcache and source/kube gets %s (denied)", l)
			}
		}
	}
	if len(lines) > maxEmbedModules {
		t.Errorf("a module importing only watchcache and source/kube gets %d modules, more than the bound of %d", len(lines), maxEmbedModules)
	}
	t.Logf("%d modules", len(lines))
}
