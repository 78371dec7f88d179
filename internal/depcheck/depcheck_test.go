package depcheck

import (
	"os/exec"
	"strings"
	"testing"
)

// The bounds are `go list -deps` counts (standard library included) with a margin of a few
// packages over today's: watchcache 122, selection 115, index 67, rvclock 52. watchcache's is the
// one the packaging promises (≤ 130); a new dependency that needs more is a decision to make here,
// not by accident.
var core = []struct {
	pkg string
	max int
}{
	{"github.com/watchcache/watchcache/watchcache", 130},
	{"github.com/watchcache/watchcache/selection", 120},
	{"github.com/watchcache/watchcache/index", 70},
	{"github.com/watchcache/watchcache/rvclock", 55},
}

// denied are packages (and trees of packages, with a trailing '/') the core must not reach: the
// apiserver's object model and Status (mapped at the edge, by package apistatus), clients and
// servers, and the logging and tracing stacks they bring.
var denied = []string{
	"k8s.io/apimachinery/pkg/api/errors",
	"k8s.io/apimachinery/pkg/apis/meta/v1",
	"k8s.io/apimachinery/pkg/runtime",
	"k8s.io/apimachinery/pkg/runtime/",
	"k8s.io/apimachinery/pkg/watch",
	"k8s.io/api/",
	"k8s.io/client-go/",
	"k8s.io/apiserver/",
	"sigs.k8s.io/controller-runtime/",
	"github.com/watchcache/watchcache/apistatus",
	"github.com/watchcache/watchcache/kubeapi",
	"github.com/watchcache/watchcache/source/",
	"go.etcd.io/",
	"google.golang.org/grpc",
	"google.golang.org/protobuf/",
	"go.opentelemetry.io/",
	"go.uber.org/zap",
	"net/http",
}

func TestCoreDependencies(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH")
	}
	for _, c := range core {
		t.Run(c.pkg[strings.LastIndex(c.pkg, "/")+1:], func(t *testing.T) {
			out, err := exec.Command("go", "list", "-deps", c.pkg).Output()
			if err != nil {
				t.Fatalf("go list -deps %s: %v", c.pkg, err)
			}
			deps := strings.Fields(string(out))
			for _, d := range deps {
				for _, bad := range denied {
					if d == bad || (strings.HasSuffix(bad, "/") && strings.HasPrefix(d, bad)) {
						t.Errorf("%s depends on %s (denied)", c.pkg, d)
					}
				}
			}
			if len(deps) > c.max {
				t.Errorf("%s depends on %d packages, more than its bound of %d", c.pkg, len(deps), c.max)
			}
		})
	}
}
