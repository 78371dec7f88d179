// Package conformance is the behaviour suite every implementation of the Kubernetes read API in
// this project runs: the watch cache itself (CacheTarget), the HTTP façade through client-go, and
// the writable test fake. It pins, rule by rule, the kube-apiserver 1.37 semantics written down in
// reference/apiserver-semantics.md; each subtest is named "<rule>/<what>" (Rules lists them).
//
// An implementation plugs in as a Target: a Writer that the suite feeds the way a source feeds a
// cache (a re-list at an RV, events with explicit increasing RVs, bookmarks), and a Reader that
// takes the Kubernetes query parameters (metav1.ListOptions) and answers with raw JSON items, the
// list metadata, watch events as they are on the wire, and errors that carry the apiserver's
// metav1.Status. The suite reaches the implementation only through the Target, so an adapter that
// speaks HTTP runs the same checks unchanged:
//
//	func TestConformance(t *testing.T) {
//		conformance.Run(t, func(t conformance.TB, cfg conformance.Config) conformance.Target {
//			return newMyTarget(t, cfg) // sized by cfg: window, wait timeout, bookmark interval
//		})
//	}
//
// The suite can fail: this package's tests run it against deliberately broken Targets (a reader
// that ignores the snapshot RV of continue tokens, one that drops the NUL ending the start key,
// one that drops remainingItemCount, a watch that sends MODIFIED on selector exit) through a
// recording TB and require the rules that catch each to fail.
//
// Two more sections take a rest.Config instead of a Target. RunWrites (W rules) checks the write
// path through client-go against any server that takes writes, the writable fake or a real
// apiserver. RunFaults (F rules) checks what a client sees when the server misbehaves — conflicts,
// expired continue tokens, 429 with Retry-After, 500/503/504, slow answers, watches that end or
// expire, compaction — and runs only against a server that offers an Injector (the fake's Server
// does; a real apiserver cannot be made to fail on demand, so there every F rule skips).
//
// Tokens: the continue token is a public wire format, decoded here by DecodeToken and described
// byte by byte on Token.
package conformance
