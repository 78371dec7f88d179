package peers

import (
	"flag"
	"io"

	"k8s.io/klog/v2"
)

// The apiserver's cacher logs through klog (e.g. "Terminating all watchers" on Stop); the
// benchmarks' output must stay parseable by benchstat, so klog writes nowhere.
func init() {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	_ = fs.Set("logtostderr", "false")
	_ = fs.Set("alsologtostderr", "false")
	_ = fs.Set("stderrthreshold", "FATAL")
	klog.SetOutput(io.Discard)
}
