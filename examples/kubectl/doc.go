// Package kubectl runs kubectl v1.37.2 against `watchcache serve` with its own data: the fake
// cluster the README's main job starts. Its test is the example: `kubectl apply -f`, `kubectl
// patch` (merge and JSON patch), `kubectl apply --server-side` with its conflict, `kubectl delete`
// and `kubectl get -w --output-watch-events` behave as they do against a kube-apiserver.
//
// The test builds the serve command from this checkout (`go build -C ../../cmd/watchcache`) and
// runs kubectl as a child process: the test binary itself, which acts as kubectl when
// KUBECTL_EXAMPLE_RUN is set, so no kubectl binary is needed.
package kubectl
