run create namespace $NS
run apply -f $DIR/sts.yaml
run diff -f $DIR/sts.yaml
run apply -f $DIR/sts.yaml --dry-run=server
run get sts web -o json
run get ds ds -o json
run get storageclass kd-sc -o json
run get ingressclass kd-ic -o json
run get lease l1 -o json
run get hpa h2 -o json
run get endpoints ep1 -o json
run get limitrange lr -o json
run get event ev1 -o json
run scale sts web --replicas=3
run patch sts web --type=merge -p '{"spec":{"serviceName":"other"}}'
run patch sts web --type=merge -p '{"spec":{"updateStrategy":{"type":"OnDelete"}}}'
run set image ds/ds c=nginx:2
run get ds ds -o jsonpath={.metadata.generation}{.metadata.annotations}
run rollout restart sts/web
run rollout history sts/web
run create job j2 --image=busybox
run patch job j2 --type=merge -p '{"spec":{"suspend":true}}'
run patch job j2 --type=merge -p '{"spec":{"template":{"spec":{"containers":[{"name":"j2","image":"x"}]}}}}'
run get job j2 -o jsonpath={.spec.suspend}{.metadata.generation}
run create cronjob cj2 --image=busybox --schedule="bad"
#run delete -f $DIR/sts.yaml --wait=false
