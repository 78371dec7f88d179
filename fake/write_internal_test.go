package fake

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"unsafe"

	admissionv1 "k8s.io/api/admission/v1"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
)

// TestCreateOptionsValidation pins what create's skip of the options' validation relies on: the
// options a client leaves empty are valid, and any option set is validated as before.
func TestCreateOptionsValidation(t *testing.T) {
	if errs := metav1validation.ValidateCreateOptions(&metav1.CreateOptions{}); len(errs) > 0 {
		t.Fatalf("empty create options: %v", errs)
	}
	s, err := NewHandler(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, c := range []struct {
		query string
		code  int
	}{
		{"", http.StatusCreated},
		{"?dryRun=All", http.StatusCreated},
		{"?dryRun=", http.StatusUnprocessableEntity},
		{"?dryRun=Some", http.StatusUnprocessableEntity},
		{"?fieldValidation=Bogus", http.StatusUnprocessableEntity},
		{"?fieldManager=%01", http.StatusUnprocessableEntity},
	} {
		if rec := serveJSON(s, "POST", "/api/v1/namespaces/default/configmaps"+c.query, `{"metadata":{"generateName":"c-"}}`); rec.Code != c.code {
			t.Errorf("POST%s: %d %s, want %d", c.query, rec.Code, rec.Body, c.code)
		}
	}
}

// TestUpdateOptionsValidation pins what validateUpdateOptions relies on (the options a client
// leaves empty are valid), checks that it then allocates nothing, and that an update with any
// option set is validated as before.
func TestUpdateOptionsValidation(t *testing.T) {
	if errs := metav1validation.ValidateUpdateOptions(&metav1.UpdateOptions{}); len(errs) > 0 {
		t.Fatalf("empty update options: %v", errs)
	}
	if n := testing.AllocsPerRun(100, func() { _ = validateUpdateOptions(&metav1.UpdateOptions{}) }); n != 0 {
		t.Errorf("validating empty update options allocates %v times", n)
	}
	s, err := NewHandler(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if rec := serveJSON(s, "POST", "/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"c"}}`); rec.Code != http.StatusCreated {
		t.Fatalf("create: %d %s", rec.Code, rec.Body)
	}
	for _, c := range []struct {
		query string
		code  int
	}{
		{"", http.StatusOK},
		{"?dryRun=All", http.StatusOK},
		{"?fieldManager=m", http.StatusOK},
		{"?dryRun=", http.StatusUnprocessableEntity},
		{"?dryRun=Some", http.StatusUnprocessableEntity},
		{"?fieldValidation=Bogus", http.StatusUnprocessableEntity},
		{"?fieldManager=%01", http.StatusUnprocessableEntity},
	} {
		for _, path := range []string{"/api/v1/namespaces/default/configmaps/c", "/apis/apps/v1/namespaces/default/deployments/d/scale"} {
			rec := serveJSON(s, "PUT", path+c.query, `{"metadata":{"name":"c"},"data":{"k":"v"}}`)
			if strings.HasSuffix(path, "/scale") {
				// No such deployment: options are validated before it is read.
				if want := c.code; want == http.StatusOK && rec.Code != http.StatusNotFound || want != http.StatusOK && rec.Code != want {
					t.Errorf("PUT %s%s: %d %s", path, c.query, rec.Code, rec.Body)
				}
				continue
			}
			if rec.Code != c.code {
				t.Errorf("PUT %s%s: %d %s, want %d", path, c.query, rec.Code, rec.Body, c.code)
			}
		}
	}
}

// serveJSON serves one request with a JSON body through the server's handler.
func serveJSON(s *Server, method, path, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	return rec
}

// TestReadAll checks readAll against io.ReadAll for bodies shorter than, as long as and longer
// than the size it is given, read in pieces of every size, and with a read error.
func TestReadAll(t *testing.T) {
	body := strings.Repeat("0123456789", 300)
	for _, n := range []int{0, 1, 511, 512, 513, 3000} {
		for _, size := range []int64{0, 1, int64(n) - 1, int64(n), int64(n) + 1, 4096} {
			for _, piece := range []int{1, 7, 512, 4096} {
				src := body[:n]
				got, err := readAll(iotest.OneByteReader(strings.NewReader(src)), max(size, 0))
				if piece > 1 {
					got, err = readAll(&chunks{s: src, n: piece}, max(size, 0))
				}
				if err != nil || string(got) != src {
					t.Fatalf("n %d size %d piece %d: %d bytes, %v", n, size, piece, len(got), err)
				}
			}
		}
	}
	want := errors.New("broken")
	got, err := readAll(io.MultiReader(strings.NewReader("abc"), iotest.ErrReader(want)), 10)
	if string(got) != "abc" || err != want {
		t.Fatalf("readAll of a broken body = %q, %v; want the bytes before the error and it", got, err)
	}
}

// chunks reads s at most n bytes at a time.
type chunks struct {
	s string
	n int
}

func (c *chunks) Read(p []byte) (int, error) {
	if c.s == "" {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), c.n)], c.s)
	c.s = c.s[k:]
	return k, nil
}

// TestBodyMediaTypes checks bodyJSONStrict's media types without a parse against
// mime.ParseMediaType's answer, and that the others are still parsed.
func TestBodyMediaTypes(t *testing.T) {
	for _, ct := range []string{"application/json", protobufType, "application/yaml"} {
		if mt, params, err := mime.ParseMediaType(ct); mt != ct || len(params) != 0 || err != nil {
			t.Fatalf("ParseMediaType(%q) = %q, %v, %v", ct, mt, params, err)
		}
	}
	for _, c := range []struct {
		ct   string
		json bool // the body comes back as it is
	}{
		{"", true}, {"application/json", true}, {protobufType, true}, {"Application/JSON; charset=utf-8", true},
		{"application/json;", true}, {"/json", false}, {"application/json; charset", false}, {"text/plain", false}, {"application/yaml", true}, {"application/yaml ; x=y", true},
	} {
		req := httptest.NewRequest("POST", "/", nil)
		req.Header.Set("Content-Type", c.ct)
		got, _, err := bodyJSONStrict(req, []byte(`{"a":1}`), nil)
		if (err == nil && string(got) == `{"a":1}`) != c.json {
			t.Errorf("Content-Type %q: %s, %v", c.ct, got, err)
		}
	}
}

// TestWriteResourceVersion checks writeResourceVersion against a copy with the digits spliced in,
// for shorter, equal and longer digits, with and without the capacity to write in place, and that
// it writes in place when it can.
func TestWriteResourceVersion(t *testing.T) {
	const enc = `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"c","resourceVersion":"%s","uid":"u"},"data":{"k":"v"}}`
	for _, old := range []string{"", "0", "12345", "99999999999999999999"} {
		for _, rv := range []uint64{1, 12345, 1<<64 - 1} {
			for _, spare := range []int{0, 3, 30} {
				src := fmt.Sprintf(enc, old)
				b := make([]byte, len(src), len(src)+spare)
				copy(b, src)
				at, end, ok := resourceVersionValue(b)
				if !ok {
					t.Fatal("no resourceVersion")
				}
				want := fmt.Sprintf(enc, strconv.FormatUint(rv, 10))
				got := writeResourceVersion(b, at, end, rv)
				if string(got) != want {
					t.Fatalf("old %q rv %d spare %d: %s, want %s", old, rv, spare, got, want)
				}
				inPlace, wantInPlace := unsafe.SliceData(got) == unsafe.SliceData(b), len(want) <= cap(b)
				if inPlace != wantInPlace {
					t.Errorf("old %q rv %d spare %d: written in place %v, want %v", old, rv, spare, inPlace, wantInPlace)
				}
			}
		}
	}
}

// TestAdmitQuotaWithoutQuotas checks that quota admission in a server without quotas builds
// nothing (the resource's quota kind is built only when there is a quota to charge).
func TestAdmitQuotaWithoutQuotas(t *testing.T) {
	s, err := NewHandler(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r := s.res["/v1/pods"]
	pod, old := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"}}, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"}}
	if n := testing.AllocsPerRun(100, func() {
		if err := s.admitQuota(contextBackground(), r, pod, nil, "", false); err != nil {
			t.Fatal(err)
		}
		if err := s.admitQuota(contextBackground(), r, pod, old, "", false); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("admitQuota without quotas allocates %v times", n)
	}
}

// TestValidateWorkloadKindOthers checks that the workload validation of another kind (a
// ConfigMap's create and update) returns at once, without comparing specs or building paths.
func TestValidateWorkloadKindOthers(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}, Data: map[string]string{"k": "v"}}
	old := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}, Data: map[string]string{"k": "w"}}
	if n := testing.AllocsPerRun(100, func() {
		if errs := validateWorkloadKind(cm, nil); errs != nil {
			t.Fatal(errs)
		}
		if errs := validateWorkloadKind(cm, old); errs != nil {
			t.Fatal(errs)
		}
	}); n != 0 {
		t.Errorf("validateWorkloadKind of a ConfigMap allocates %v times", n)
	}
}

// TestKindWarningsPaths checks the template paths of the strategies' warnings, which kindWarnings
// builds for the workload kinds only.
func TestKindWarningsPaths(t *testing.T) {
	s, err := NewHandler(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	spec := corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i", Ports: []corev1.ContainerPort{{ContainerPort: 80}, {ContainerPort: 80}}}}}
	tmpl := corev1.PodTemplateSpec{Spec: spec}
	for _, c := range []struct {
		obj    runtime.Object
		prefix string
	}{
		{&appsv1.Deployment{Spec: appsv1.DeploymentSpec{Template: tmpl}}, "spec.template.spec.containers[0].ports[1]"},
		{&batchv1.CronJob{Spec: batchv1.CronJobSpec{JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: tmpl}}}}, "spec.jobTemplate.spec.template.spec.containers[0].ports[1]"},
	} {
		w := s.kindWarnings(c.obj, nil)
		if len(w) == 0 || !strings.HasPrefix(w[0], c.prefix) {
			t.Errorf("%T: warnings %q, want one starting %s", c.obj, w, c.prefix)
		}
	}
	cm := &corev1.ConfigMap{}
	// The webhook configurations' warnings it asks for first allocate on their own.
	base := testing.AllocsPerRun(100, func() { _ = matchConditionWarnings(cm) })
	if n := testing.AllocsPerRun(100, func() { _ = s.kindWarnings(cm, nil) }); n != base {
		t.Errorf("kindWarnings of a ConfigMap allocates %v times, matchConditionWarnings %v", n, base)
	}
}

// TestWritesDoNotPublish checks that a run of creates, whose commits each read the object they
// store, leaves the cache's snapshots to its readers: the commit's read does not publish one per
// write (Cache.Newest), whose B-tree clones the next create would copy.
func TestWritesDoNotPublish(t *testing.T) {
	s, err := NewHandler(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := range 60 {
		req := httptest.NewRequest("POST", "/api/v1/namespaces/default/configmaps", strings.NewReader(fmt.Sprintf(`{"metadata":{"name":"c%d"}}`, i)))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		if rec.Code != http.StatusCreated {
			t.Fatalf("create %d: %d %s", i, rec.Code, rec.Body)
		}
	}
	if st := s.res["/v1/configmaps"].cache.Stats(); st.Snapshots > 2 {
		t.Errorf("60 creates left %d snapshots in the window, want the one at the start", st.Snapshots)
	}
}

// TestWebhooksWithoutConfigurations checks that a write's admission in a server without webhook
// configurations builds no attributes: mutate and validateWebhooks return at once.
func TestWebhooksWithoutConfigurations(t *testing.T) {
	s, err := NewHandler(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tg := target{res: s.res["/v1/configmaps"], namespace: "default", name: "c", admit: &admissionRequest{ctx: contextBackground()}}
	cm, old := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "default"}}, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "default"}}
	if n := testing.AllocsPerRun(100, func() {
		if got, err := s.mutate(tg, admissionv1.Create, cm, nil); err != nil || got != cm {
			t.Fatalf("mutate: %v, %v", got, err)
		}
		if err := s.validateWebhooks(tg, admissionv1.Update, cm, old); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("admission without webhooks allocates %v times", n)
	}
}

// TestIsAlreadyExists checks isAlreadyExists against apierrors.IsAlreadyExists, and that a nil
// error costs no allocation.
func TestIsAlreadyExists(t *testing.T) {
	exists := apierrors.NewAlreadyExists(schema.GroupResource{Resource: "configmaps"}, "c")
	for _, err := range []error{nil, exists, fmt.Errorf("wrapped: %w", exists), validatedError{exists}, apierrors.NewConflict(schema.GroupResource{Resource: "configmaps"}, "c", errors.New("x")), errors.New("other")} {
		if got, want := isAlreadyExists(err), apierrors.IsAlreadyExists(err); got != want {
			t.Errorf("%v: %v, want %v", err, got, want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { _ = isAlreadyExists(nil) }); n != 0 {
		t.Errorf("isAlreadyExists(nil) allocates %v times", n)
	}
}

// TestDecodeOptions checks decodeOptions against DecodeParameters of the parsed query, and that
// an empty query, which it does not parse, allocates nothing.
func TestDecodeOptions(t *testing.T) {
	for _, q := range []string{"", "?", "?dryRun=All", "?fieldManager=m&fieldValidation=Strict", "?dryRun=All&dryRun=All"} {
		r := httptest.NewRequest("POST", "/api/v1/namespaces/default/configmaps"+q, nil)
		var got, want metav1.CreateOptions
		if err := decodeOptions(r, &got); err != nil {
			t.Fatal(err)
		}
		if err := scheme.ParameterCodec.DecodeParameters(r.URL.Query(), optionsVersion, &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q: %+v, want %+v", q, got, want)
		}
	}
	r := httptest.NewRequest("PUT", "/api/v1/namespaces/default/configmaps/c", nil)
	opts := new(metav1.UpdateOptions)
	if n := testing.AllocsPerRun(100, func() {
		if err := decodeOptions(r, opts); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("decoding an empty query allocates %v times", n)
	}
}
