package controller_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/watchcache/watchcache/examples/controller"
	"github.com/watchcache/watchcache/fake"
)

// TestMirror runs the controller against the writable fake: the informers list and watch it as
// they would a cluster, and the test checks what the controller wrote through the same API.
func TestMirror(t *testing.T) {
	srv := fake.NewTest(t, fake.Options{})
	cs := kubernetes.NewForConfigOrDie(srv.Config())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- controller.New(cs).Run(ctx, 2) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})

	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "app", Namespace: "default", Labels: map[string]string{controller.MirrorLabel: "true"}},
		Data:       map[string]string{"password": "hunter2"},
	}
	cm, err := cs.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the mirror Secret", func() (bool, error) {
		s, err := cs.CoreV1().Secrets("default").Get(ctx, "app", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return err == nil && string(s.Data["password"]) == "hunter2" && len(s.OwnerReferences) == 1 && s.OwnerReferences[0].UID == cm.UID, err
	})

	cm.Data["password"] = "correct horse"
	if cm, err = cs.CoreV1().ConfigMaps("default").Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the Secret to follow the update", func() (bool, error) {
		s, err := cs.CoreV1().Secrets("default").Get(ctx, "app", metav1.GetOptions{})
		return err == nil && string(s.Data["password"]) == "correct horse", err
	})

	// Someone edits the Secret: the controller puts it back.
	s, err := cs.CoreV1().Secrets("default").Get(ctx, "app", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.Data["password"] = []byte("tampered")
	if _, err := cs.CoreV1().Secrets("default").Update(ctx, s, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the Secret to be restored", func() (bool, error) {
		s, err := cs.CoreV1().Secrets("default").Get(ctx, "app", metav1.GetOptions{})
		return err == nil && string(s.Data["password"]) == "correct horse", err
	})

	delete(cm.Labels, controller.MirrorLabel)
	if _, err := cs.CoreV1().ConfigMaps("default").Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the Secret to go", func() (bool, error) {
		_, err := cs.CoreV1().Secrets("default").Get(ctx, "app", metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
}

func waitFor(t *testing.T, what string, cond func() (bool, error)) {
	t.Helper()
	var last error
	err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		ok, err := cond()
		last = err
		return ok, nil
	})
	if err != nil {
		t.Fatalf("waiting for %s: %v (last error: %v)", what, err, last)
	}
}
