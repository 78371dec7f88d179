# Records etcd-builtin-subresources.json from the oracle (../shared/oracle): with its env exported
# (set -a; source $ORACLE_WORK/run/env), after
#   kubectl apply -f etcd-builtin-subresources.yaml
#   kubectl -n ns-s patch deploy d --subresource=status --type=merge -p '{"status":{"replicas":2,"observedGeneration":1}}'
#   kubectl -n ns-s patch rs rs --subresource=status --type=merge -p '{"status":{"replicas":1}}'
# run python3 etcd-builtin-subresources.py here.
import json, os, ssl, urllib.request, base64, datetime
kas, tok, etcd = os.environ['KAS_URL'], os.environ['TOKEN'], os.environ['ETCD_URL']
ctx = ssl._create_unverified_context()
def get(path, accept='application/json'):
    req = urllib.request.Request(kas + path, headers={'Authorization': 'Bearer ' + tok, 'Accept': accept})
    try:
        r = urllib.request.urlopen(req, context=ctx); return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
keys = ['/registry/namespaces/ns-s', '/registry/pods/ns-s/p', '/registry/deployments/ns-s/d', '/registry/replicasets/ns-s/rs',
        '/registry/statefulsets/ns-s/ss', '/registry/controllers/ns-s/rc', '/registry/services/specs/ns-s/svc', '/registry/minions/n1']
kvs = []
for k in keys:
    body = json.dumps({'key': base64.b64encode(k.encode()).decode()}).encode()
    r = json.load(urllib.request.urlopen(urllib.request.Request(etcd + '/v3/kv/range', data=body)))
    assert r.get('kvs'), k
    kvs.append({'key': k, 'value_base64': r['kvs'][0]['value']})
paths = ['/api/v1', '/apis/apps/v1',
  '/api/v1/namespaces/ns-s/pods/p/status', '/apis/apps/v1/namespaces/ns-s/deployments/d/status',
  '/api/v1/nodes/n1/status', '/api/v1/namespaces/ns-s/services/svc/status', '/api/v1/namespaces/ns-s/status',
  '/apis/apps/v1/namespaces/ns-s/replicasets/rs/status', '/apis/apps/v1/namespaces/ns-s/statefulsets/ss/status',
  '/api/v1/namespaces/ns-s/replicationcontrollers/rc/status',
  '/apis/apps/v1/namespaces/ns-s/deployments/d/scale', '/apis/apps/v1/namespaces/ns-s/replicasets/rs/scale',
  '/apis/apps/v1/namespaces/ns-s/statefulsets/ss/scale', '/api/v1/namespaces/ns-s/replicationcontrollers/rc/scale',
  '/api/v1/namespaces/ns-s/pods/nope/status', '/apis/apps/v1/namespaces/ns-s/deployments/nope/scale',
  '/api/v1/namespaces/ns-s/pods/p/other', '/api/v1/namespaces/ns-s/pods/p/scale']
answers = []
for p in paths:
    c, b = get(p)
    answers.append({'path': p, 'accept': 'application/json', 'code': c, 'body': b})
rec = {'recorded': 'kube-apiserver v1.37.2 + etcd 3.7.3 (oracle, default protobuf storage), %s: the etcd values of a namespace, a pod, a deployment (status.replicas 2 set through /status), a replica set (status.replicas 1), a stateful set, a replication controller, a service and a node, and the apiserver\'s answers to GETs of their status and scale subresources, of a missing object\'s, of subresources a pod does not have or serve does not serve, and the legacy discovery of /api/v1 and /apis/apps/v1' % datetime.datetime.now(datetime.UTC).strftime('%Y-%m-%d %H:%M UTC'),
       'kvs': kvs, 'answers': answers}
json.dump(rec, open('etcd-builtin-subresources.json', 'w'), indent=1)
for a in answers: print(a['code'], a['path'], a['body'][:200].replace('\n',' '))
