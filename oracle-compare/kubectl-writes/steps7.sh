run create namespace $NS
run create -f $DIR/csr.yaml
run get csr kw-csr-1 -o jsonpath={.spec.signerName},{.spec.usages},{.spec.groups},{.status}
run certificate approve kw-csr-1
run certificate deny kw-csr-2
run certificate approve kw-csr-2
run certificate approve kw-csr-1
run get csr kw-csr-1 -o jsonpath={.status.conditions[*].type}
run get csr kw-csr-2 -o jsonpath={.status.conditions[*].type}
run delete csr kw-csr-1 kw-csr-2
run create deployment web --image=nginx --replicas=1
run scale deployment web --replicas=3 --current-replicas=1
run scale deployment web --replicas=4 --current-replicas=1
run get deployment web --subresource=scale -o json
run patch deployment web --subresource=scale --type=merge -p '{"spec":{"replicas":5}}'
run patch deployment web --subresource=status --type=merge -p '{"status":{"replicas":5}}'
run apply --server-side --field-manager=scaler --subresource=scale -f $DIR/scale.yaml
run get deployment web -o json
run label deployment web tier=front
run label deployment web tier=back
run label deployment web tier=back --overwrite
run label deployment web tier-
run label deployment web x=y --resource-version=1
run annotate deployment web note=one
run annotate deployment web note=two --overwrite
run annotate deployment web --all note=all --overwrite
run rollout restart deployment/web
run rollout history deployment/web
run set image deployment/web nginx=nginx:2
run set image deployment/web nosuch=nginx:2
run delete deployment web --cascade=orphan --dry-run=server
run create configmap c1 --from-literal=a=1
run create configmap c2 --from-literal=a=2
run label configmap c1 c2 grp=g
run delete configmap -l grp=g --dry-run=server
run get configmap -l grp=g -o name
run delete configmap --all --dry-run=server -o name
run delete configmap -l grp=g
run create priorityclass kw-pc --value=100 --description=d
run create priorityclass kw-pc2 --value=100 --global-default=true --preemption-policy=Never
run delete priorityclass kw-pc kw-pc2
run create clusterrole kw-agg --aggregation-rule=rbac.example.com/aggregate=true
run get clusterrole kw-agg -o json
run delete clusterrole kw-agg
run create -f $DIR/node.yaml
run taint node kd-node-1 k1=v1:NoSchedule
run taint node kd-node-1 k1=v2:NoSchedule
run taint node kd-node-1 k1=v2:NoSchedule --overwrite
run taint node kd-node-1 k1:NoSchedule-
run taint node kd-node-1 k2:NoExecute
run cordon kd-node-1
run uncordon kd-node-1
run get node kd-node-1 -o json
run delete node kd-node-1
run apply -f $DIR/sts7.yaml
run scale statefulset web --replicas=2
run get statefulset web --subresource=scale -o json
run patch statefulset web --subresource=status --type=json -p '[{"op":"add","path":"/status/replicas","value":2}]'
run create quota q1 --hard=count/configmaps=1
run patch quota q1 --subresource=status --type=merge -p '{"status":{"hard":{"count/configmaps":"1"},"used":{"count/configmaps":"1"}}}'
run create configmap c3 --from-literal=a=3
run create token default --duration=1h -o jsonpath={.kind}
