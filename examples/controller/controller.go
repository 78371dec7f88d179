// Package controller is an example controller built the usual client-go way — a shared informer,
// a rate-limited work queue, a lister for reads, the clientset for writes — tested against the
// writable fake (controller_test.go) instead of a real cluster.
//
// The controller keeps one Secret per ConfigMap that asks for it with the label
// example.com/mirror=true: the Secret has the ConfigMap's name and data, and an owner reference to
// it; when the ConfigMap stops asking, the Secret is deleted.
package controller

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

// MirrorLabel is the label that asks for a mirror Secret.
const MirrorLabel = "example.com/mirror"

// Controller mirrors labelled ConfigMaps into Secrets.
//
// Run may be called once; the Controller is not reusable after Run returns.
type Controller struct {
	cs      kubernetes.Interface
	factory informers.SharedInformerFactory
	cms     corelisters.ConfigMapLister
	secrets corelisters.SecretLister
	synced  []cache.InformerSynced
	queue   workqueue.TypedRateLimitingInterface[string]
}

// New returns a Controller over cs.
func New(cs kubernetes.Interface) *Controller {
	f := informers.NewSharedInformerFactory(cs, 10*time.Minute)
	cmInf := f.Core().V1().ConfigMaps()
	secInf := f.Core().V1().Secrets()
	c := &Controller{
		cs: cs, factory: f,
		cms: cmInf.Lister(), secrets: secInf.Lister(),
		synced: []cache.InformerSynced{cmInf.Informer().HasSynced, secInf.Informer().HasSynced},
		queue:  workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]()),
	}
	enqueue := func(obj any) {
		if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
			c.queue.Add(key)
		}
	}
	_, _ = cmInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: enqueue, UpdateFunc: func(_, n any) { enqueue(n) }, DeleteFunc: enqueue,
	})
	// A Secret changed by someone else is put back by a sync of its ConfigMap (same key).
	_, _ = secInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(_, n any) { enqueue(n) }, DeleteFunc: enqueue,
	})
	return c
}

// Run starts the informers and workers and blocks until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) error {
	defer utilruntime.HandleCrash()
	defer c.queue.ShutDown()
	c.factory.Start(ctx.Done())
	defer c.factory.Shutdown()
	if !cache.WaitForCacheSync(ctx.Done(), c.synced...) {
		return fmt.Errorf("controller: caches did not sync: %w", ctx.Err())
	}
	for range workers {
		go wait.UntilWithContext(ctx, c.work, time.Second)
	}
	<-ctx.Done()
	return nil
}

func (c *Controller) work(ctx context.Context) {
	for {
		key, quit := c.queue.Get()
		if quit {
			return
		}
		if err := c.sync(ctx, key); err != nil {
			c.queue.AddRateLimited(key)
		} else {
			c.queue.Forget(key)
		}
		c.queue.Done(key)
	}
}

// sync makes the Secret of key match its ConfigMap.
func (c *Controller) sync(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	cm, err := c.cms.ConfigMaps(ns).Get(name)
	if apierrors.IsNotFound(err) || (err == nil && cm.Labels[MirrorLabel] != "true") {
		err := c.cs.CoreV1().Secrets(ns).Delete(ctx, name, metav1.DeleteOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return err
	}
	if err != nil {
		return err
	}
	want := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: ns,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: cm.Name, UID: cm.UID}},
		},
		StringData: cm.Data,
	}
	cur, err := c.secrets.Secrets(ns).Get(name)
	if apierrors.IsNotFound(err) {
		_, err = c.cs.CoreV1().Secrets(ns).Create(ctx, want, metav1.CreateOptions{})
		return err
	}
	if err != nil {
		return err
	}
	if sameData(cur.Data, cm.Data) {
		return nil
	}
	upd := cur.DeepCopy()
	upd.Data = nil
	upd.StringData = cm.Data
	_, err = c.cs.CoreV1().Secrets(ns).Update(ctx, upd, metav1.UpdateOptions{})
	return err
}

func sameData(secret map[string][]byte, cm map[string]string) bool {
	if len(secret) != len(cm) {
		return false
	}
	for k, v := range cm {
		if string(secret[k]) != v {
			return false
		}
	}
	return true
}
