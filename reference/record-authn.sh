source /root/oracle-serve/run/env
AL=$(cat /root/oracle-serve/alice.token); BO=$(cat /root/oracle-serve/bob.token)
rec() { # name token path
  local name=$1 tok=$2 path=$3 h=()
  [ -n "$tok" ] && h=(-H "Authorization: Bearer $tok")
  curl -ks -A "watchcache-recorder/1.0" "${h[@]}" -D /tmp/serve-rec/$name.h -o /tmp/serve-rec/$name.b --max-time 3 "$KAS_URL$path"
  printf '%s\t%s\t%s\n' "$name" "$path" "$(head -1 /tmp/serve-rec/$name.h | tr -d '\r')"
}
rec anonymous "" /api/v1/namespaces/default/pods
rec badtoken "not-a-token" /api/v1/namespaces/default/pods
rec alice-list "$AL" /api/v1/namespaces/default/pods
rec alice-get "$AL" /api/v1/namespaces/default/pods/web-0
rec alice-watch "$AL" "/api/v1/namespaces/default/pods?watch=true"
rec alice-list-all "$AL" /api/v1/pods
rec alice-list-deploy "$AL" /apis/apps/v1/namespaces/default/deployments
rec alice-list-nodes "$AL" /api/v1/nodes
rec alice-get-ns "$AL" /api/v1/namespaces/default
rec bob-list "$BO" /api/v1/namespaces/default/pods
rec bob-list-all "$BO" /api/v1/pods
rec bob-get "$BO" /api/v1/namespaces/default/pods/web-0
rec bob-watch-all "$BO" "/api/v1/pods?watch=true"
rec alice-healthz "$AL" /healthz
rec anonymous-healthz "" /healthz
