#!/usr/bin/env bash
# kubectl-writes: the same kubectl commands against kube-apiserver 1.37.2 (the oracle) and against
# `watchcache serve --pods 0`, each step's output compared after masking what differs by nature
# (uids, resourceVersions, times, allocated cluster IPs). Prints "same:" or "### DIFF:" and the
# diff for each step.
#
# Usage (the oracle started fresh by ../../../shared/oracle/start.sh, its kubectl built):
#   bash oracle-compare/kubectl-writes/run.sh [steps1.sh ...]     # default: every steps*.sh
# Each steps file is a list of `run ARGS...` lines, run in the namespace kubectl-writes-<n>.
# Needs openssl (a throwaway TLS pair for the secrets).
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OW=${ORACLE_WORK:-$HOME/.cache/kube-oracle}
K=$OW/bin/kubectl
DIR=$(mktemp -d)
trap 'kill $SERVE_PID 2>/dev/null; rm -rf "$DIR"' EXIT
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$DIR/tls.key" -out "$DIR/tls.crt" -subj /CN=x -days 1 2>/dev/null
for f in "$HERE"/*.yaml; do
  sed "s#TLS_CRT#$(base64 -w0 "$DIR/tls.crt")#; s#TLS_KEY#$(base64 -w0 "$DIR/tls.key")#" "$f" >"$DIR/$(basename "$f")"
done
go build -C "$ROOT/cmd/watchcache" -o "$DIR/watchcache" .
"$DIR/watchcache" serve --listen 127.0.0.1:0 --pods 0 >"$DIR/serve.out" 2>"$DIR/serve.err" &
SERVE_PID=$!
for _ in $(seq 50); do [ -s "$DIR/serve.out" ] && break; sleep 0.1; done
cat >"$DIR/serve.kubeconfig" <<EOC
apiVersion: v1
kind: Config
clusters: [{name: serve, cluster: {server: "$(head -1 "$DIR/serve.out")"}}]
contexts: [{name: serve, context: {cluster: serve}}]
current-context: serve
EOC
norm() {
  sed -E 's/"(uid|resourceVersion|creationTimestamp|time|lastTransitionTime|lastUpdateTime|startTime|deletionTimestamp|lastPhaseTransitionTime|controller-uid|batch.kubernetes.io\/controller-uid)": "[^"]*"/"\1": "X"/g;
    s/(uid|resourceVersion): "?[0-9a-f-]+"?$/\1: X/; s/10\.96\.[0-9]+\.[0-9]+/10.96.X.X/g; s/ +/ /g; s/ [0-9]+[smhd]([0-9]+[sm])?( |$)/ AGE\2/g'
}
run() {
  local o s
  o=$(KUBECONFIG=$OW/run/kubeconfig HOME=$DIR/ho "$K" -n "$NS" "$@" 2>&1 | norm)
  s=$(KUBECONFIG=$DIR/serve.kubeconfig HOME=$DIR/hs "$K" -n "$NS" "$@" 2>&1 | norm)
  if [ "$o" != "$s" ]; then echo "### DIFF: kubectl $*"; diff <(echo "$o") <(echo "$s") | head -"${DIFFLINES:-30}"; else echo "same: kubectl $*"; fi
}
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=("$HERE"/steps*.sh)
for f in "${steps[@]}"; do
  NS=kubectl-writes-$(basename "$f" .sh | tr -dc 0-9)
  echo "== $f (namespace $NS)"
  # shellcheck source=/dev/null
  source "$f"
done
