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
// Tokens: the continue token is a public wire format, decoded here by DecodeToken and described
// byte by byte on Token.
package conformance
