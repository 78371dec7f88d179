package conformance

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	kptr "k8s.io/utils/ptr"
)

// The write section: one subtest per rule of the write path, each citing the answer a
// kube-apiserver 1.37.2 gave to the same request in reference/observed-writes.md (section /
// step). It runs through client-go's typed clientset against any server that takes writes: the
// writable fake, or a real apiserver.

// writeRule is one subtest of the write section.
type writeRule struct {
	name string
	test func(w *writeEnv)
}

// RunWrites runs the write section: each rule gets a Config from newTarget (a server of its own or
// a shared one: each rule works in a namespace it creates, named after it) and runs through
// client-go. The subtests are listed by WriteRules; those whose names start with one of skip are
// left out (W6 needs kube-controller-manager's garbage collector and namespace controller, which
// a kube-apiserver alone does not run).
func RunWrites(t TB, newTarget func(t TB) *rest.Config, skip ...string) {
	RunWritesWith(t, newTarget, WriteOptions{Skip: skip})
}

// WriteOptions adjust RunWritesWith.
type WriteOptions struct {
	// Skip leaves out the rules whose names start with one of its prefixes.
	Skip []string
	// ControllerPatience bounds how long a W6 rule waits for the controllers (garbage collector,
	// namespace controller) to do something; zero means 30s, which kube-controller-manager's
	// namespace controller needs (it looks again at a namespace with content left 8s later).
	ControllerPatience time.Duration
}

// defaultControllerPatience is WriteOptions.ControllerPatience's default.
const defaultControllerPatience = 30 * time.Second

// RunWritesWith is RunWrites with options.
func RunWritesWith(t TB, newTarget func(t TB) *rest.Config, o WriteOptions) {
	if o.ControllerPatience <= 0 {
		o.ControllerPatience = defaultControllerPatience
	}
	for i, r := range writeRules() {
		if slices.ContainsFunc(o.Skip, func(p string) bool { return strings.HasPrefix(r.name, p) }) {
			continue
		}
		run(t, r.name, func(t TB) {
			cfg := rest.CopyConfig(newTarget(t))
			warnings := &warningRecorder{}
			cfg.WarningHandler = warnings
			cs, err := kubernetes.NewForConfig(cfg)
			if err != nil {
				t.Fatalf("client: %v", err)
			}
			dyn, err := dynamic.NewForConfig(cfg)
			if err != nil {
				t.Fatalf("dynamic client: %v", err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second+2*o.ControllerPatience)
			t.Cleanup(cancel)
			w := &writeEnv{t: t, cs: cs, dyn: dyn, ctx: ctx, ns: fmt.Sprintf("wr-%d-%d", i, time.Now().UnixNano()%1_000_000), warnings: warnings,
				patience: o.ControllerPatience}
			if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: w.ns}}, metav1.CreateOptions{}); err != nil {
				t.Fatalf("create namespace %s: %v", w.ns, err)
			}
			r.test(w)
		})
	}
}

// WriteRules returns the names of the write section's subtests, in the order RunWrites runs them.
func WriteRules() []string {
	var out []string
	for _, r := range writeRules() {
		out = append(out, r.name)
	}
	return out
}

// writeEnv is one write rule's client and namespace.
type writeEnv struct {
	t        TB
	cs       kubernetes.Interface
	dyn      dynamic.Interface // for custom resources (W7)
	ctx      context.Context
	ns       string
	warnings *warningRecorder
	// patience bounds the waits for controllers.
	patience time.Duration
}

// warningRecorder collects the Warning headers client-go receives.
type warningRecorder struct {
	mu   sync.Mutex
	msgs []string
}

func (r *warningRecorder) HandleWarningHeader(code int, agent, text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, text)
}

func (r *warningRecorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.msgs
	r.msgs = nil
	return out
}

func (w *writeEnv) cm(name string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: w.ns}, Data: data}
}

func (w *writeEnv) createCM(name string) *corev1.ConfigMap {
	w.t.Helper()
	cm, err := w.cs.CoreV1().ConfigMaps(w.ns).Create(w.ctx, w.cm(name, map[string]string{"k": "v"}), metav1.CreateOptions{})
	if err != nil {
		w.t.Fatalf("create configmap %s: %v", name, err)
	}
	return cm
}

func (w *writeEnv) deployment(name string, replicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: w.ns},
		Spec: appsv1.DeploymentSpec{
			Replicas: kptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}},
			},
		},
	}
}

// wantStatus checks that err is an API error with the code, reason and message given; a message
// ending in "*" is a prefix.
func (w *writeEnv) wantStatus(err error, code int32, reason metav1.StatusReason, message string) *metav1.Status {
	w.t.Helper()
	var st apierrors.APIStatus
	if err == nil {
		w.t.Fatalf("no error, want %d %s %q", code, reason, message)
	}
	if !asAPIStatus(err, &st) {
		w.t.Fatalf("error %v (%T) carries no Status, want %d %s", err, err, code, reason)
	}
	s := st.Status()
	if s.Code != code || s.Reason != reason {
		w.t.Errorf("status %d %s (%q), want %d %s", s.Code, s.Reason, s.Message, code, reason)
	}
	if p, ok := strings.CutSuffix(message, "*"); ok {
		if !strings.HasPrefix(s.Message, p) {
			w.t.Errorf("message %q, want prefix %q", s.Message, p)
		}
	} else if s.Message != message {
		w.t.Errorf("message %q, want %q", s.Message, message)
	}
	return &s
}

func asAPIStatus(err error, st *apierrors.APIStatus) bool {
	for e := err; e != nil; {
		if s, ok := e.(apierrors.APIStatus); ok {
			*st = s
			return true
		}
		u, ok := e.(interface{ Unwrap() error })
		if !ok {
			return false
		}
		e = u.Unwrap()
	}
	return false
}

// generatedSuffix is the apiserver's generated name suffix: 5 characters of
// k8s.io/apimachinery/pkg/util/rand's alphabet.
var generatedSuffix = regexp.MustCompile(`^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$`)

func writeRules() []writeRule {
	return append([]writeRule{
		{"W1.1/create sets uid, creationTimestamp, resourceVersion; generation where the resource has one", func(w *writeEnv) {
			// observed-writes.md: create / configmap, create / deployment,
			// create / uid and creationTimestamp are the server's.
			sent := w.cm("cm", nil)
			sent.UID = "11111111-2222-3333-4444-555555555555"
			sent.CreationTimestamp = metav1.NewTime(time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC))
			sent.Generation = 7
			cm, err := w.cs.CoreV1().ConfigMaps(w.ns).Create(w.ctx, sent, metav1.CreateOptions{})
			if err != nil {
				w.t.Fatalf("create: %v", err)
			}
			if cm.UID == "" || cm.UID == sent.UID {
				w.t.Errorf("uid %q: want a new one from the server", cm.UID)
			}
			if cm.CreationTimestamp.Year() == 2020 || cm.CreationTimestamp.IsZero() {
				w.t.Errorf("creationTimestamp %v: want the server's time", cm.CreationTimestamp)
			}
			if cm.ResourceVersion == "" || cm.Generation != 7 {
				w.t.Errorf("resourceVersion %q generation %d: want one set, and the generation sent (7: a configmap has none of its own)", cm.ResourceVersion, cm.Generation)
			}
			d, err := w.cs.AppsV1().Deployments(w.ns).Create(w.ctx, w.deployment("d", 1), metav1.CreateOptions{})
			if err != nil {
				w.t.Fatalf("create deployment: %v", err)
			}
			if d.Generation != 1 {
				w.t.Errorf("deployment generation %d, want 1", d.Generation)
			}
		}},
		{"W1.2/create of an existing name is 409 AlreadyExists", func(w *writeEnv) {
			// observed-writes.md: create / already exists.
			w.createCM("cm1")
			_, err := w.cs.CoreV1().ConfigMaps(w.ns).Create(w.ctx, w.cm("cm1", nil), metav1.CreateOptions{})
			st := w.wantStatus(err, 409, metav1.StatusReasonAlreadyExists, `configmaps "cm1" already exists`)
			if st.Details == nil || st.Details.Name != "cm1" || st.Details.Kind != "configmaps" {
				w.t.Errorf("details %+v, want name cm1, kind configmaps", st.Details)
			}
		}},
		{"W1.3/generateName appends 5 random characters", func(w *writeEnv) {
			// observed-writes.md: create / generateName.
			seen := map[string]bool{}
			for range 5 {
				cm, err := w.cs.CoreV1().ConfigMaps(w.ns).Create(w.ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "gen-"}}, metav1.CreateOptions{})
				if err != nil {
					w.t.Fatalf("create: %v", err)
				}
				if !generatedSuffix.MatchString(cm.Name) || seen[cm.Name] || cm.GenerateName != "gen-" {
					w.t.Errorf("name %q (generateName %q): want gen- and 5 new random characters", cm.Name, cm.GenerateName)
				}
				seen[cm.Name] = true
			}
		}},
		{"W1.4/invalid names are 422 Invalid", func(w *writeEnv) {
			// observed-writes.md: create / invalid name, create / no name.
			_, err := w.cs.CoreV1().ConfigMaps(w.ns).Create(w.ctx, w.cm("Bad_Name", nil), metav1.CreateOptions{})
			w.wantStatus(err, 422, metav1.StatusReasonInvalid, `ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`)
			_, err = w.cs.CoreV1().ConfigMaps(w.ns).Create(w.ctx, w.cm("", nil), metav1.CreateOptions{})
			w.wantStatus(err, 422, metav1.StatusReasonInvalid, `ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required`)
		}},
		{"W1.5/create in a missing namespace is 404", func(w *writeEnv) {
			// observed-writes.md: create / missing namespace.
			_, err := w.cs.CoreV1().ConfigMaps("no-such-ns").Create(w.ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x"}}, metav1.CreateOptions{})
			w.wantStatus(err, 404, metav1.StatusReasonNotFound, `namespaces "no-such-ns" not found`)
		}},
		{"W1.6/create in a terminating namespace is 403", func(w *writeEnv) {
			// observed-writes.md: delete / delete namespace, delete / create in terminating namespace.
			// The content has a finalizer, so that the namespace stays Terminating also where a
			// namespace controller runs.
			keep := w.cm("keep", nil)
			keep.Finalizers = []string{"example.com/keep"}
			if _, err := w.cs.CoreV1().ConfigMaps(w.ns).Create(w.ctx, keep, metav1.CreateOptions{}); err != nil {
				w.t.Fatalf("create: %v", err)
			}
			if err := w.cs.CoreV1().Namespaces().Delete(w.ctx, w.ns, metav1.DeleteOptions{}); err != nil {
				w.t.Fatalf("delete namespace: %v", err)
			}
			ns, err := w.cs.CoreV1().Namespaces().Get(w.ctx, w.ns, metav1.GetOptions{})
			if err != nil {
				w.t.Fatalf("namespace gone right after its delete: %v (want it Terminating while it has content)", err)
			}
			if ns.Status.Phase != corev1.NamespaceTerminating || ns.DeletionTimestamp == nil {
				w.t.Errorf("namespace phase %q deletionTimestamp %v, want Terminating and set", ns.Status.Phase, ns.DeletionTimestamp)
			}
			_, err = w.cs.CoreV1().ConfigMaps(w.ns).Create(w.ctx, w.cm("late", nil), metav1.CreateOptions{})
			w.wantStatus(err, 403, metav1.StatusReasonForbidden, fmt.Sprintf(`configmaps "late" is forbidden: unable to create new content in namespace %s because it is being terminated`, w.ns))
		}},
		{"W1.7/dryRun=All answers without storing", func(w *writeEnv) {
			// observed-writes.md: create / dryRun=All, create / dryRun object absent.
			cm, err := w.cs.CoreV1().ConfigMaps(w.ns).Create(w.ctx, w.cm("dry", nil), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			if err != nil {
				w.t.Fatalf("dry-run create: %v", err)
			}
			if cm.UID == "" || cm.Name != "dry" {
				w.t.Errorf("dry-run answer %+v: want the object as it would be created", cm.ObjectMeta)
			}
			_, err = w.cs.CoreV1().ConfigMaps(w.ns).Get(w.ctx, "dry", metav1.GetOptions{})
			w.wantStatus(err, 404, metav1.StatusReasonNotFound, `configmaps "dry" not found`)
		}},
		{"W1.8/fieldValidation Strict rejects unknown fields, Warn warns, Ignore drops them", func(w *writeEnv) {
			// observed-writes.md: create / fieldValidation=Strict unknown, =Warn, =Ignore.
			body := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"%s"},"extra":true}`
			post := func(name, fv string) error {
				return w.cs.CoreV1().RESTClient().Post().Namespace(w.ns).Resource("configmaps").
					Param("fieldValidation", fv).SetHeader("Content-Type", "application/json").
					Body([]byte(fmt.Sprintf(body, name))).Do(w.ctx).Error()
			}
			w.wantStatus(post("strict", "Strict"), 400, metav1.StatusReasonBadRequest, `ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "extra"`)
			w.warnings.take()
			if err := post("warn", "Warn"); err != nil {
				w.t.Fatalf("Warn: %v", err)
			}
			if got := w.warnings.take(); len(got) != 1 || got[0] != `unknown field "extra"` {
				w.t.Errorf("Warn: warnings %q, want [unknown field \"extra\"]", got)
			}
			if err := post("ignore", "Ignore"); err != nil {
				w.t.Fatalf("Ignore: %v", err)
			}
			if got := w.warnings.take(); len(got) != 0 {
				w.t.Errorf("Ignore: warnings %q, want none", got)
			}
		}},
		{"W2.1/update at a stale resourceVersion is 409 Conflict", func(w *writeEnv) {
			// observed-writes.md: update / stale resourceVersion.
			cm := w.createCM("u")
			cm.Data = map[string]string{"k": "v2"}
			if _, err := w.cs.CoreV1().ConfigMaps(w.ns).Update(w.ctx, cm, metav1.UpdateOptions{}); err != nil {
				w.t.Fatalf("update: %v", err)
			}
			cm.Data = map[string]string{"k": "v3"}
			_, err := w.cs.CoreV1().ConfigMaps(w.ns).Update(w.ctx, cm, metav1.UpdateOptions{})
			w.wantStatus(err, 409, metav1.StatusReasonConflict, `Operation cannot be fulfilled on configmaps "u": the object has been modified; please apply your changes to the latest version and try again`)
			got, err := w.cs.CoreV1().ConfigMaps(w.ns).Get(w.ctx, "u", metav1.GetOptions{})
			if err != nil || got.Data["k"] != "v2" {
				w.t.Errorf("after the conflict: %v %v, want data k=v2 unchanged", got.Data, err)
			}
		}},
		{"W2.2/an update without resourceVersion is unconditional where the strategy allows it", func(w *writeEnv) {
			// observed-writes.md: update / unconditional, update / lease unconditional update.
			w.createCM("u")
			if _, err := w.cs.CoreV1().ConfigMaps(w.ns).Update(w.ctx, w.cm("u", map[string]string{"k": "x"}), metav1.UpdateOptions{}); err != nil {
				w.t.Errorf("unconditional configmap update: %v", err)
			}
			l := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "l", Namespace: w.ns}, Spec: coordinationv1.LeaseSpec{HolderIdentity: kptr.To("a")}}
			if _, err := w.cs.CoordinationV1().Leases(w.ns).Create(w.ctx, l, metav1.CreateOptions{}); err != nil {
				w.t.Fatalf("create lease: %v", err)
			}
			l.Spec.HolderIdentity = kptr.To("b")
			_, err := w.cs.CoordinationV1().Leases(w.ns).Update(w.ctx, l, metav1.UpdateOptions{})
			w.wantStatus(err, 422, metav1.StatusReasonInvalid, `leases.coordination.k8s.io "l" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update`)
		}},
		{"W2.3/a no-op update keeps the resourceVersion", func(w *writeEnv) {
			// observed-writes.md: update / no-op keeps resourceVersion.
			cm := w.createCM("u")
			got, err := w.cs.CoreV1().ConfigMaps(w.ns).Update(w.ctx, cm, metav1.UpdateOptions{})
			if err != nil {
				w.t.Fatalf("update: %v", err)
			}
			if got.ResourceVersion != cm.ResourceVersion {
				w.t.Errorf("resourceVersion %s after a no-op update, want %s", got.ResourceVersion, cm.ResourceVersion)
			}
		}},
		{"W2.4/generation is bumped by spec changes only", func(w *writeEnv) {
			// observed-writes.md: update / deployment spec change bumps generation, label change keeps generation.
			d, err := w.cs.AppsV1().Deployments(w.ns).Create(w.ctx, w.deployment("d", 1), metav1.CreateOptions{})
			if err != nil {
				w.t.Fatalf("create: %v", err)
			}
			d.Labels = map[string]string{"l": "1"}
			d, err = w.cs.AppsV1().Deployments(w.ns).Update(w.ctx, d, metav1.UpdateOptions{})
			if err != nil || d.Generation != 1 {
				w.t.Fatalf("label update: generation %d, %v; want 1", d.Generation, err)
			}
			d.Spec.Replicas = kptr.To[int32](3)
			d, err = w.cs.AppsV1().Deployments(w.ns).Update(w.ctx, d, metav1.UpdateOptions{})
			if err != nil || d.Generation != 2 {
				w.t.Errorf("spec update: generation %d, %v; want 2", d.Generation, err)
			}
		}},
		{"W2.5/the main resource ignores status, the status subresource everything else", func(w *writeEnv) {
			// observed-writes.md: update / deployment status ignored by the main resource,
			// update / deployment status subresource ignores spec and labels.
			d, err := w.cs.AppsV1().Deployments(w.ns).Create(w.ctx, w.deployment("d", 1), metav1.CreateOptions{})
			if err != nil {
				w.t.Fatalf("create: %v", err)
			}
			d.Status.Replicas = 5
			d, err = w.cs.AppsV1().Deployments(w.ns).Update(w.ctx, d, metav1.UpdateOptions{})
			if err != nil || d.Status.Replicas != 0 {
				w.t.Fatalf("main update: status.replicas %d, %v; want 0 (ignored)", d.Status.Replicas, err)
			}
			d.Status.Replicas = 5
			d.Spec.Replicas = kptr.To[int32](9)
			d.Labels = map[string]string{"l": "2"}
			d, err = w.cs.AppsV1().Deployments(w.ns).UpdateStatus(w.ctx, d, metav1.UpdateOptions{})
			if err != nil {
				w.t.Fatalf("status update: %v", err)
			}
			if d.Status.Replicas != 5 || *d.Spec.Replicas != 1 || d.Labels["l"] != "" || d.Generation != 1 {
				w.t.Errorf("status update: status.replicas %d spec.replicas %d labels %v generation %d; want 5, 1, none, 1",
					d.Status.Replicas, *d.Spec.Replicas, d.Labels, d.Generation)
			}
		}},
		{"W2.6/a pod's spec is immutable but for the allowed fields", func(w *writeEnv) {
			// observed-writes.md: update / pod image change, update / pod immutable field, update / pod add container.
			// Tagged images: the defaulted imagePullPolicy (IfNotPresent) stays the same.
			p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: w.ns}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox:1"}}}}
			p, err := w.cs.CoreV1().Pods(w.ns).Create(w.ctx, p, metav1.CreateOptions{})
			if err != nil {
				w.t.Fatalf("create pod: %v", err)
			}
			_, err = w.cs.CoreV1().Pods(w.ns).Patch(w.ctx, "p", types.MergePatchType, []byte(`{"spec":{"containers":[{"name":"c","image":"busybox:2"}]}}`), metav1.PatchOptions{})
			if err != nil {
				w.t.Errorf("image change: %v", err)
			}
			_, err = w.cs.CoreV1().Pods(w.ns).Patch(w.ctx, "p", types.MergePatchType, []byte(`{"spec":{"restartPolicy":"Never"}}`), metav1.PatchOptions{})
			w.wantStatus(err, 422, metav1.StatusReasonInvalid, `Pod "p" is invalid: spec: Forbidden: pod updates may not change fields other than `+"`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)*")
			_, err = w.cs.CoreV1().Pods(w.ns).Patch(w.ctx, "p", types.MergePatchType, []byte(`{"spec":{"containers":[{"name":"c","image":"busybox:2"},{"name":"d","image":"busybox"}]}}`), metav1.PatchOptions{})
			w.wantStatus(err, 422, metav1.StatusReasonInvalid, `Pod "p" is invalid: spec.containers: Forbidden: pod updates may not add or remove containers`)
		}},
		{"W2.7/uid, creationTimestamp are immutable", func(w *writeEnv) {
			// observed-writes.md: update / other uid, update / creationTimestamp ignored.
			cm := w.createCM("u")
			c := cm.DeepCopy()
			c.ResourceVersion = ""
			c.CreationTimestamp = metav1.NewTime(time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC))
			got, err := w.cs.CoreV1().ConfigMaps(w.ns).Update(w.ctx, c, metav1.UpdateOptions{})
			if err != nil || !got.CreationTimestamp.Equal(&cm.CreationTimestamp) {
				w.t.Errorf("creationTimestamp update: %v %v, want the original kept", got.CreationTimestamp, err)
			}
			c = cm.DeepCopy()
			c.ResourceVersion = ""
			c.UID = "11111111-2222-3333-4444-555555555555"
			_, err = w.cs.CoreV1().ConfigMaps(w.ns).Update(w.ctx, c, metav1.UpdateOptions{})
			w.wantStatus(err, 409, metav1.StatusReasonConflict, fmt.Sprintf(`Operation cannot be fulfilled on configmaps "u": StorageError: invalid object, Code: 4, Key: /registry/configmaps/%s/u, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: 11111111-2222-3333-4444-555555555555, UID in object meta: %s`, w.ns, cm.UID))
		}},
		{"W3.1/delete removes the object; watchers see DELETED", func(w *writeEnv) {
			// observed-writes.md: delete / delete, delete / delete again.
			cm := w.createCM("d")
			wa, err := w.cs.CoreV1().ConfigMaps(w.ns).Watch(w.ctx, metav1.ListOptions{ResourceVersion: cm.ResourceVersion})
			if err != nil {
				w.t.Fatalf("watch: %v", err)
			}
			defer wa.Stop()
			if err := w.cs.CoreV1().ConfigMaps(w.ns).Delete(w.ctx, "d", metav1.DeleteOptions{}); err != nil {
				w.t.Fatalf("delete: %v", err)
			}
			select {
			case ev := <-wa.ResultChan():
				if got, ok := ev.Object.(*corev1.ConfigMap); ev.Type != watch.Deleted || !ok {
					w.t.Errorf("event %s %v, want DELETED", ev.Type, ev.Object)
				} else if rv := got.ResourceVersion; rv == cm.ResourceVersion {
					w.t.Errorf("DELETED at resourceVersion %s, the object's last: want the delete's own", rv)
				}
			case <-time.After(patience):
				w.t.Errorf("no DELETED event")
			}
			err = w.cs.CoreV1().ConfigMaps(w.ns).Delete(w.ctx, "d", metav1.DeleteOptions{})
			w.wantStatus(err, 404, metav1.StatusReasonNotFound, `configmaps "d" not found`)
		}},
		{"W3.2/delete preconditions on uid and resourceVersion", func(w *writeEnv) {
			// observed-writes.md: delete / uid precondition, delete / resourceVersion precondition, delete / preconditions hold.
			cm := w.createCM("d")
			err := w.cs.CoreV1().ConfigMaps(w.ns).Delete(w.ctx, "d", metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: kptr.To(types.UID("11111111-2222-3333-4444-555555555555"))}})
			w.wantStatus(err, 409, metav1.StatusReasonConflict, fmt.Sprintf(`Operation cannot be fulfilled on ConfigMap "d": the UID in the precondition (11111111-2222-3333-4444-555555555555) does not match the UID in record (%s). The object might have been deleted and then recreated`, cm.UID))
			err = w.cs.CoreV1().ConfigMaps(w.ns).Delete(w.ctx, "d", metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: kptr.To("1")}})
			w.wantStatus(err, 409, metav1.StatusReasonConflict, fmt.Sprintf(`Operation cannot be fulfilled on ConfigMap "d": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (%s). The object might have been modified`, cm.ResourceVersion))
			if err := w.cs.CoreV1().ConfigMaps(w.ns).Delete(w.ctx, "d", metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &cm.UID, ResourceVersion: &cm.ResourceVersion}}); err != nil {
				w.t.Errorf("delete with matching preconditions: %v", err)
			}
		}},
		{"W3.3/finalizers keep a deleted object until the last one is removed", func(w *writeEnv) {
			// observed-writes.md: delete / delete with finalizer … delete / gone.
			cm := w.cm("f", nil)
			cm.Finalizers = []string{"example.com/f"}
			if _, err := w.cs.CoreV1().ConfigMaps(w.ns).Create(w.ctx, cm, metav1.CreateOptions{}); err != nil {
				w.t.Fatalf("create: %v", err)
			}
			if err := w.cs.CoreV1().ConfigMaps(w.ns).Delete(w.ctx, "f", metav1.DeleteOptions{}); err != nil {
				w.t.Fatalf("delete: %v", err)
			}
			got, err := w.cs.CoreV1().ConfigMaps(w.ns).Get(w.ctx, "f", metav1.GetOptions{})
			if err != nil || got.DeletionTimestamp == nil || got.DeletionGracePeriodSeconds == nil || *got.DeletionGracePeriodSeconds != 0 {
				w.t.Fatalf("after delete: %v %+v, want the object with deletionTimestamp and grace 0", err, got)
			}
			got.Finalizers = append(got.Finalizers, "example.com/g")
			_, err = w.cs.CoreV1().ConfigMaps(w.ns).Update(w.ctx, got, metav1.UpdateOptions{})
			w.wantStatus(err, 422, metav1.StatusReasonInvalid, `ConfigMap "f" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/g"}`)
			got.Finalizers = nil
			if _, err := w.cs.CoreV1().ConfigMaps(w.ns).Update(w.ctx, got, metav1.UpdateOptions{}); err != nil {
				w.t.Fatalf("remove finalizer: %v", err)
			}
			_, err = w.cs.CoreV1().ConfigMaps(w.ns).Get(w.ctx, "f", metav1.GetOptions{})
			w.wantStatus(err, 404, metav1.StatusReasonNotFound, `configmaps "f" not found`)
		}},
		{"W3.4/a scheduled pod is deleted gracefully; gracePeriodSeconds=0 deletes it", func(w *writeEnv) {
			// observed-writes.md: delete / graceful pod delete, delete / pod delete gracePeriodSeconds=0.
			p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: w.ns}, Spec: corev1.PodSpec{NodeName: "n1", TerminationGracePeriodSeconds: kptr.To[int64](30), Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}
			if _, err := w.cs.CoreV1().Pods(w.ns).Create(w.ctx, p, metav1.CreateOptions{}); err != nil {
				w.t.Fatalf("create: %v", err)
			}
			if err := w.cs.CoreV1().Pods(w.ns).Delete(w.ctx, "p", metav1.DeleteOptions{}); err != nil {
				w.t.Fatalf("delete: %v", err)
			}
			got, err := w.cs.CoreV1().Pods(w.ns).Get(w.ctx, "p", metav1.GetOptions{})
			if err != nil || got.DeletionGracePeriodSeconds == nil || *got.DeletionGracePeriodSeconds != 30 || got.DeletionTimestamp == nil ||
				got.DeletionTimestamp.Time.Before(time.Now().Add(20*time.Second)) {
				w.t.Fatalf("after delete: %v %+v, want deletionTimestamp 30 s ahead and grace 30", err, got.ObjectMeta)
			}
			if err := w.cs.CoreV1().Pods(w.ns).Delete(w.ctx, "p", metav1.DeleteOptions{GracePeriodSeconds: kptr.To[int64](0)}); err != nil {
				w.t.Fatalf("delete now: %v", err)
			}
			_, err = w.cs.CoreV1().Pods(w.ns).Get(w.ctx, "p", metav1.GetOptions{})
			w.wantStatus(err, 404, metav1.StatusReasonNotFound, `pods "p" not found`)
		}},
		{"W3.5/deletecollection deletes what the selectors select", func(w *writeEnv) {
			// observed-writes.md: delete / deletecollection by label, by field, left.
			for _, c := range []struct{ name, a string }{{"l1", "1"}, {"l2", "2"}, {"l3", "1"}} {
				cm := w.cm(c.name, nil)
				cm.Labels = map[string]string{"a": c.a}
				if _, err := w.cs.CoreV1().ConfigMaps(w.ns).Create(w.ctx, cm, metav1.CreateOptions{}); err != nil {
					w.t.Fatalf("create: %v", err)
				}
			}
			if err := w.cs.CoreV1().ConfigMaps(w.ns).DeleteCollection(w.ctx, metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}}, metav1.ListOptions{LabelSelector: "a=1"}); err != nil {
				w.t.Fatalf("dry-run deletecollection: %v", err)
			}
			if err := w.cs.CoreV1().ConfigMaps(w.ns).DeleteCollection(w.ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: "a=1"}); err != nil {
				w.t.Fatalf("deletecollection: %v", err)
			}
			l, err := w.cs.CoreV1().ConfigMaps(w.ns).List(w.ctx, metav1.ListOptions{})
			if err != nil || len(l.Items) != 1 || l.Items[0].Name != "l2" {
				w.t.Errorf("left: %v %v, want l2 only", names(l), err)
			}
			if err := w.cs.CoreV1().ConfigMaps(w.ns).DeleteCollection(w.ctx, metav1.DeleteOptions{}, metav1.ListOptions{FieldSelector: "metadata.name=l2"}); err != nil {
				w.t.Fatalf("deletecollection by field: %v", err)
			}
			if l, err := w.cs.CoreV1().ConfigMaps(w.ns).List(w.ctx, metav1.ListOptions{}); err != nil || len(l.Items) != 0 {
				w.t.Errorf("left: %v %v, want none", names(l), err)
			}
		}},
		{"W3.6/dryRun delete keeps the object", func(w *writeEnv) {
			// observed-writes.md: delete / dryRun, delete / after dryRun.
			w.createCM("d")
			if err := w.cs.CoreV1().ConfigMaps(w.ns).Delete(w.ctx, "d", metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
				w.t.Fatalf("dry-run delete: %v", err)
			}
			if _, err := w.cs.CoreV1().ConfigMaps(w.ns).Get(w.ctx, "d", metav1.GetOptions{}); err != nil {
				w.t.Errorf("after a dry-run delete: %v, want the object", err)
			}
		}},
		{"W4.1/every write is one event at a new, larger resourceVersion, in order", func(w *writeEnv) {
			// Like etcd's revision, the resourceVersion is one counter across resources.
			cm := w.createCM("a")
			wa, err := w.cs.CoreV1().ConfigMaps(w.ns).Watch(w.ctx, metav1.ListOptions{ResourceVersion: cm.ResourceVersion})
			if err != nil {
				w.t.Fatalf("watch: %v", err)
			}
			defer wa.Stop()
			var rvs []string
			for i := range 5 {
				cm.Data = map[string]string{"i": fmt.Sprint(i)}
				cm.ResourceVersion = ""
				got, err := w.cs.CoreV1().ConfigMaps(w.ns).Update(w.ctx, cm, metav1.UpdateOptions{})
				if err != nil {
					w.t.Fatalf("update: %v", err)
				}
				rvs = append(rvs, got.ResourceVersion)
				s, err := w.cs.CoreV1().Secrets(w.ns).Create(w.ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("s", i)}}, metav1.CreateOptions{})
				if err != nil {
					w.t.Fatalf("create secret: %v", err)
				}
				if !rvLess(got.ResourceVersion, s.ResourceVersion) {
					w.t.Errorf("secret RV %s after configmap RV %s: want larger", s.ResourceVersion, got.ResourceVersion)
				}
			}
			for i, want := range rvs {
				select {
				case ev := <-wa.ResultChan():
					got, ok := ev.Object.(*corev1.ConfigMap)
					if !ok {
						w.t.Fatalf("event %d: %s %v, want MODIFIED at %s", i, ev.Type, ev.Object, want)
					}
					if ev.Type != watch.Modified || got.ResourceVersion != want || got.Data["i"] != fmt.Sprint(i) {
						w.t.Errorf("event %d: %s at %s (%v), want MODIFIED at %s", i, ev.Type, got.ResourceVersion, got.Data, want)
					}
				case <-time.After(patience):
					w.t.Fatalf("event %d missing", i)
				}
			}
		}},
		{"W4.2/concurrent conditional updates of one object are atomic", func(w *writeEnv) {
			// Each successful update read the state it replaced: N writers that retry on 409 add N.
			w.createCM("counter")
			const writers, each = 8, 5
			var wg sync.WaitGroup
			errs := make(chan error, writers)
			for range writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for done := 0; done < each; {
						cm, err := w.cs.CoreV1().ConfigMaps(w.ns).Get(w.ctx, "counter", metav1.GetOptions{})
						if err != nil {
							errs <- err
							return
						}
						cm.Data = map[string]string{"n": fmt.Sprint(atoi(cm.Data["n"]) + 1)}
						_, err = w.cs.CoreV1().ConfigMaps(w.ns).Update(w.ctx, cm, metav1.UpdateOptions{})
						if apierrors.IsConflict(err) {
							continue
						}
						if err != nil {
							errs <- err
							return
						}
						done++
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				w.t.Fatalf("writer: %v", err)
			}
			cm, err := w.cs.CoreV1().ConfigMaps(w.ns).Get(w.ctx, "counter", metav1.GetOptions{})
			if err != nil || cm.Data["n"] != fmt.Sprint(writers*each) {
				w.t.Errorf("counter %v (%v), want %d", cm.Data, err, writers*each)
			}
		}},
		{"W5.1/server-side apply creates, records its manager, and conflicts with another manager's fields", func(w *writeEnv) {
			body := func(v string) []byte {
				return []byte(fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":%q}}`, v))
			}
			cm, err := w.cs.CoreV1().ConfigMaps(w.ns).Patch(w.ctx, "a", types.ApplyPatchType, body("1"), metav1.PatchOptions{FieldManager: "one"})
			if err != nil {
				w.t.Fatalf("apply (create): %v", err)
			}
			if len(cm.ManagedFields) != 1 || cm.ManagedFields[0].Manager != "one" || cm.ManagedFields[0].Operation != metav1.ManagedFieldsOperationApply {
				w.t.Errorf("managedFields %+v, want one Apply entry of manager one", cm.ManagedFields)
			}
			_, err = w.cs.CoreV1().ConfigMaps(w.ns).Patch(w.ctx, "a", types.ApplyPatchType, body("2"), metav1.PatchOptions{FieldManager: "two"})
			w.wantStatus(err, 409, metav1.StatusReasonConflict, `Apply failed with 1 conflict: conflict with "one": .data.k`)
			cm, err = w.cs.CoreV1().ConfigMaps(w.ns).Patch(w.ctx, "a", types.ApplyPatchType, body("2"), metav1.PatchOptions{FieldManager: "two", Force: kptr.To(true)})
			if err != nil || cm.Data["k"] != "2" {
				w.t.Errorf("forced apply: %v %v, want data k=2", cm.Data, err)
			}
		}},
		{"W5.2/an update records its manager in managedFields", func(w *writeEnv) {
			cm, err := w.cs.CoreV1().ConfigMaps(w.ns).Create(w.ctx, w.cm("m", map[string]string{"k": "v"}), metav1.CreateOptions{FieldManager: "creator"})
			if err != nil {
				w.t.Fatalf("create: %v", err)
			}
			if len(cm.ManagedFields) != 1 || cm.ManagedFields[0].Manager != "creator" || cm.ManagedFields[0].Operation != metav1.ManagedFieldsOperationUpdate {
				w.t.Errorf("managedFields %+v, want one Update entry of manager creator", cm.ManagedFields)
			}
		}},
		{"W6.1/a deleted namespace goes once its content has gone", func(w *writeEnv) {
			// With a namespace controller (the fake's, or kube-controller-manager's).
			w.createCM("a")
			if err := w.cs.CoreV1().Namespaces().Delete(w.ctx, w.ns, metav1.DeleteOptions{}); err != nil {
				w.t.Fatalf("delete namespace: %v", err)
			}
			w.eventually("namespace "+w.ns+" gone", func() bool {
				_, err := w.cs.CoreV1().Namespaces().Get(w.ctx, w.ns, metav1.GetOptions{})
				return apierrors.IsNotFound(err)
			})
			_, err := w.cs.CoreV1().ConfigMaps(w.ns).Get(w.ctx, "a", metav1.GetOptions{})
			w.wantStatus(err, 404, metav1.StatusReasonNotFound, `configmaps "a" not found`)
		}},
	}, append(controllerRules(), crdRules()...)...)
}

func names(l *corev1.ConfigMapList) []string {
	if l == nil {
		return nil
	}
	var out []string
	for _, it := range l.Items {
		out = append(out, it.Name)
	}
	return out
}

func rvLess(a, b string) bool {
	return len(a) < len(b) || (len(a) == len(b) && a < b)
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}
