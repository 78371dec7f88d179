run create namespace $NS
run apply -f $DIR/01-pods.yaml
run apply -f $DIR/02-workloads.yaml
run apply -f $DIR/03-core.yaml
run apply -f $DIR/04-cluster.yaml
run get pod full -o json
run get sts s -o json
run get job j -o json
run get hpa hpa -o json
run get limitrange lr -o json
run get pv kdv-pv -o json
run get validatingwebhookconfiguration kdv-vwc -o json
