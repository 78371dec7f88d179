run create namespace $NS
run create cronjob cj --image=busybox --schedule="*/5 * * * *" -- echo hi
run create job j-from --from=cronjob/cj
run get job j-from -o jsonpath={.metadata.annotations},{.metadata.ownerReferences[0].kind},{.spec.template.spec.containers[0].command}
run create deployment d8 --image=nginx --port=80
run set serviceaccount deployment d8 sa8
run set selector service nosuch app=x
run expose deployment d8 --name=svc8 --port=80 --type=NodePort --dry-run=server -o jsonpath={.spec.type}
run create rolebinding rb8 --clusterrole=view --user=u8 --group=g8
run set subject rolebinding rb8 --serviceaccount=$NS:sa8
run get rolebinding rb8 -o json
run create secret docker-registry reg --docker-server=r.example.com --docker-username=u --docker-password=p
run get secret reg -o jsonpath={.type}
run create configmap big --from-literal=a=1 --from-literal=b=2 --dry-run=server -o json
run annotate deployment d8 a=b --dry-run=server -o jsonpath={.metadata.annotations.a}
run label namespace $NS team=x
run get namespace $NS -o jsonpath={.metadata.labels}
run create -f $DIR/node.yaml
run run p8 --image=nginx --overrides={"spec":{"nodeName":"kd-node-1"}}
run drain kd-node-1 --ignore-daemonsets --delete-emptydir-data --force --timeout=5s --dry-run=server
run cordon kd-node-1 --dry-run=server
run get node kd-node-1 -o jsonpath={.spec.unschedulable}
run delete pod p8 --grace-period=0 --force
run delete node kd-node-1
run wait --for=delete pod/p8 --timeout=5s
run patch deployment d8 --type=json -p '[{"op":"test","path":"/spec/replicas","value":5},{"op":"replace","path":"/spec/replicas","value":2}]'
run patch deployment d8 --type=json -p '[{"op":"move","from":"/metadata/labels/app","path":"/metadata/labels/moved"}]'
run get deployment d8 -o jsonpath={.metadata.labels}
run replace --force -f $DIR/cm2.yaml
run create deployment d9 --image=nginx --replicas=-1
run create quota q8 --hard=cpu=1,memory=1Gi --scopes=BestEffort
run create priorityclass pc8 --value=1000000001
run create poddisruptionbudget pdb8 --selector=app=d8 --max-unavailable=50%
run get pdb pdb8 -o json
