run create namespace $NS
run create -f $DIR/node.yaml
run get node kd-node-1 -o json
run cordon kd-node-1
run taint node kd-node-1 k=v:NoSchedule
run get node kd-node-1 -o json
run uncordon kd-node-1
run label node kd-node-1 role=worker
run patch node kd-node-1 --subresource=status --type=merge -p '{"status":{"capacity":{"cpu":"4","pods":"110"}}}'
run get node kd-node-1 -o json
run auth can-i create pods
run auth whoami
run create deployment d2 --image=nginx
run patch deployment d2 -p '{"spec":{"template":{"spec":{"containers":[{"name":"sidecar","image":"busybox"}]}}}}'
run get deployment d2 -o jsonpath={.spec.template.spec.containers[*].name}
run patch deployment d2 --type=json -p '[{"op":"remove","path":"/spec/template/spec/containers/1"}]'
run patch deployment d2 --type=json -p '[{"op":"test","path":"/spec/replicas","value":5}]'
run patch deployment d2 -p '{"spec":{"replicas":"x"}}'
run patch deployment d2 --type=merge -p '{"spec":{"selector":{"matchLabels":{"app":"other"}}}}'
run scale deployment d2 --replicas=-1
run scale deployment d2 --replicas=4 --current-replicas=2
run scale deployment d2 --replicas=4 --current-replicas=1
run rollout history deployment d2
run rollout undo deployment d2
run delete deployment d2 --cascade=foreground --wait=false
run get deployment d2 -o json
run create configmap big --from-literal=a=b --dry-run=client -o yaml
run create priorityclass pc-kd --value=1000
run get priorityclass pc-kd -o json
run delete priorityclass pc-kd
run create clusterrole cr-kd --verb=get --resource=pods --resource-name=a
run get clusterrole cr-kd -o json
run create clusterrolebinding crb-kd --clusterrole=cr-kd --user=alice
run get clusterrolebinding crb-kd -o json
run delete clusterrole cr-kd
run delete clusterrolebinding crb-kd
run delete node kd-node-1
run create service clusterip svc2 --tcp=5678:8080
run create service nodeport svc3 --tcp=5678:8080 --node-port=30080
run create service nodeport svc4 --tcp=5678:8080 --node-port=30080
run create service externalname svc5 --external-name=bar.com
run get svc svc5 -o json
run create service loadbalancer svc6 --tcp=80:8080
run get svc svc6 -o json
