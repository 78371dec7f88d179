package bench

import (
	"syscall"
	"testing"
	"time"
)

// cpuNow is the CPU time (user + system) the process has used: every goroutine, the garbage
// collector, and the embedded etcd server. On a shared machine it is steadier than wall time, which
// counts the time other processes hold the cores.
func cpuNow() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the process CPU time per op since start as cpu-ns/op.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuNow()-start)/float64(b.N), "cpu-ns/op")
}
