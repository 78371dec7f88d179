run create namespace $NS
run apply -f $DIR/cm2.yaml
run replace --force -f $DIR/cm2.yaml
run get cm c2 -o jsonpath={.metadata.labels}{.data}
run wait --for=jsonpath={.data.a}=1 cm/c2 --timeout=2s
run wait --for=delete cm/nothere --timeout=1s
run delete cm c2 --wait=true --timeout=5s
run create cm big --from-literal=a=b -o json --dry-run=server
run get cm -o name
run create quota rq --hard=configmaps=1
run create cm over1 --from-literal=a=b
run create cm over2 --from-literal=a=b
run get quota rq -o jsonpath={.status}
run create serviceaccount s1
run get sa s1 -o json
run create secret generic tok --type=kubernetes.io/service-account-token
run get secret tok -o json
run label ns $NS team=x
run get ns $NS -o jsonpath={.metadata.labels}
run annotate ns $NS a=b
run patch ns $NS --type=merge -p '{"spec":{"finalizers":[]}}'
run get ns $NS -o jsonpath={.spec}
run proxy --help
run get --raw /version
run get --raw /healthz
run get --raw /readyz
run get --raw /livez
