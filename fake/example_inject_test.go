package fake_test

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"

	"github.com/watchcache/watchcache/fake"
)

// A conflict injected into the first update of a ConfigMap, which client-go's RetryOnConflict
// retries; the request log shows what the client did.
func ExampleServer_Inject() {
	srv, err := fake.NewServer(fake.Options{Objects: []runtime.Object{
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "settings", Namespace: "default"}},
	}})
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	cs := kubernetes.NewForConfigOrDie(srv.Config())
	cms := cs.CoreV1().ConfigMaps("default")
	ctx := context.Background()

	srv.Inject(fake.Rule{Verbs: []string{"update"}, Resource: "configmaps", Fault: fake.Conflict, Times: 1})
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cm, err := cms.Get(ctx, "settings", metav1.GetOptions{})
		if err != nil {
			return err
		}
		cm.Data = map[string]string{"mode": "fast"}
		_, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
		return err
	})
	fmt.Println("err:", err)
	for _, r := range srv.Requests() {
		fmt.Println(r.Verb, r.Name, r.Code, r.Fault)
	}
	// Output:
	// err: <nil>
	// get settings 200 NoFault
	// update settings 409 Conflict
	// get settings 200 NoFault
	// update settings 200 NoFault
}
