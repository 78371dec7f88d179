run create namespace $NS
run create deployment e9 --image=nginx --replicas=1
EDITOR="sed -i s/replicas:\ 1/replicas:\ 3/" run edit deployment e9
run get deployment e9 -o jsonpath={.spec.replicas}
EDITOR="sed -i s/image:\ nginx/image:\ nginx:2/" run edit deployment e9 --output-patch
