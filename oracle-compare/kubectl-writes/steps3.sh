run create namespace $NS
run create configmap c1 --from-literal=a=b
run get configmap c1 -o yaml
run annotate configmap c1 x=y --resource-version=1
run label configmap c1 a=b --overwrite
run label configmap c1 a=c
run label configmap c1 a=c --overwrite
run create secret docker-registry reg --docker-server=r.io --docker-username=u --docker-password=p
run get secret reg -o json
run create secret tls tls1 --cert=$DIR/tls.crt --key=$DIR/tls.key
run get secret tls1 -o jsonpath={.type}
run create configmap fromfile --from-file=$DIR/node.yaml
run get configmap fromfile -o jsonpath={.data}
run create token default
run create sa sa2
run get --raw /api/v1/namespaces/$NS/configmaps?limit=1
run get configmaps --show-labels
run get configmaps -o wide
run delete configmap --all
run get configmaps
run create deployment d3 --image=nginx
run patch deployment d3 --subresource=status --type=merge -p '{"status":{"replicas":5,"readyReplicas":3}}'
run get deployment d3
run get deployment d3 -o jsonpath={.status}
run apply --server-side --force-conflicts -f $DIR/dep3.yaml
run get deployment d3 -o jsonpath={.metadata.managedFields[*].manager}
run get deployment d3 -o jsonpath={.spec.template.spec.containers[*].image}
run explain deployment.spec.strategy
run rollout status deployment d3 --timeout=1s
run create poddisruptionbudget p2 --selector=app=x --max-unavailable=50%
run get pdb p2 -o jsonpath={.spec}
run create -f $DIR/gen.yaml
run delete pod --all --wait=false
run create -f $DIR/fin.yaml
run delete configmap fin --wait=false
run get configmap fin -o jsonpath={.metadata.finalizers}{.metadata.deletionGracePeriodSeconds}
run patch configmap fin --type=json -p '[{"op":"remove","path":"/metadata/finalizers"}]'
run get configmap fin
