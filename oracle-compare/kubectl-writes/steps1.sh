run create namespace $NS
run create deployment nginx --image=nginx --replicas=2
run get deployment nginx -o json
run expose deployment nginx --port=80 --target-port=8080
run get service nginx -o json
run create job j1 --image=busybox -- echo hi
run get job j1 -o json
run create cronjob cj --image=busybox --schedule="*/1 * * * *"
run get cronjob cj -o json
run create secret generic s1 --from-literal=a=b
run get secret s1 -o json
run create serviceaccount sa1
run get serviceaccount sa1 -o json
run create role r1 --verb=get --resource=pods
run get role r1 -o json
run create rolebinding rb1 --role=r1 --serviceaccount=$NS:sa1
run get rolebinding rb1 -o json
run create quota q1 --hard=pods=10
run get quota q1 -o json
run create pdb pdb1 --selector=app=nginx --min-available=1
run get pdb pdb1 -o json
run create ingress ing1 --rule="foo.com/bar=svc1:8080"
run get ingress ing1 -o json
run run pod1 --image=nginx --labels=app=x
run get pod pod1 -o json
run set image deployment/nginx nginx=nginx:1.2
run set env deployment/nginx A=B
run set resources deployment nginx --limits=cpu=200m
run rollout pause deployment/nginx
run rollout resume deployment/nginx
run get deployment nginx -o json
run annotate pod pod1 a=b
run label pod pod1 app-
run get pod pod1 -o json
run autoscale deployment nginx --min=1 --max=3 --cpu=80%
run get hpa nginx -o json
run create configmap c1 --from-literal=a=b
run get all
run get events
run delete pod pod1
run delete deployment nginx
run get rs
