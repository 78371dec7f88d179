package fake

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	serializerjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"
)

// webhookCallError is a failure to get a usable answer from a webhook (the apiserver's
// ErrCallingWebhook): the request fails with a 500 under failurePolicy Fail and goes on under
// Ignore.
type webhookCallError struct {
	webhook string
	reason  error
}

func (e *webhookCallError) Error() string {
	return fmt.Sprintf("failed calling webhook %q: %v", e.webhook, e.reason)
}

// maxWebhookResponse bounds what is read of a webhook's answer: an AdmissionReview carries a patch
// of at most an object, and objects are bounded by the 3 MiB body limit.
const maxWebhookResponse = 2 * maxBodyBytes

// call sends one AdmissionReview to a webhook and returns its response once it allows the
// request. A refusal is the apiserver's error for it; a failure to call is ignored (nil response,
// nil error) under failurePolicy Ignore. Its warnings go to the client.
func (s *Server) call(a *admissionRequest, h *webhook, attrs *admissionAttributes) (*admissionv1.AdmissionResponse, error) {
	if a.isDryRun() {
		if h.sideEffects == nil {
			return s.callFailed(h, &webhookCallError{h.name, errors.New("Webhook SideEffects is nil")})
		}
		if *h.sideEffects != admissionregistrationv1.SideEffectClassNone && *h.sideEffects != admissionregistrationv1.SideEffectClassNoneOnDryRun {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("admission webhook %q does not support dry run", h.name))
		}
	}
	uid := types.UID(uuid.NewString())
	review, err := reviewOf(a, attrs, uid)
	if err != nil {
		return s.callFailed(h, &webhookCallError{h.name, fmt.Errorf("could not create admission objects: %w", err)})
	}
	resp, err := s.post(a.ctx, h, review)
	if err != nil {
		return s.callFailed(h, &webhookCallError{h.name, fmt.Errorf("failed to call webhook: %w", err)})
	}
	if err := verifyResponse(resp, uid, h.mutating); err != nil {
		return s.callFailed(h, &webhookCallError{h.name, fmt.Errorf("received invalid webhook response: %w", err)})
	}
	a.warn(resp.Warnings)
	if !resp.Allowed {
		return nil, deniedBy(h.name, resp.Result)
	}
	return resp, nil
}

// callFailed applies the webhook's failure policy to a failure to call it.
func (s *Server) callFailed(h *webhook, err *webhookCallError) (*admissionv1.AdmissionResponse, error) {
	if h.ignoresFailures() {
		if s.opts.Logger != nil {
			s.opts.Logger.Warn("failed calling webhook, failing open", "webhook", h.name, "error", err.Error())
		}
		return nil, nil
	}
	return nil, apierrors.NewInternalError(err)
}

// callMutating calls a mutating webhook and applies its JSON patch to attrs.obj, reporting
// whether the object changed. A patch that does not decode is a failure to call; one that does
// not apply, or one for a delete (no object to patch), fails the request whatever the policy.
func (s *Server) callMutating(t target, h *webhook, attrs *admissionAttributes) (bool, error) {
	resp, err := s.call(t.admit, h, attrs)
	if err != nil || resp == nil || len(resp.Patch) == 0 {
		return false, err
	}
	p, err := jsonpatch.DecodePatch(resp.Patch)
	if err != nil {
		_, err := s.callFailed(h, &webhookCallError{h.name, fmt.Errorf("received undecodable patch in webhook response: %w", err)})
		return false, err
	}
	if len(p) == 0 {
		return false, nil
	}
	if attrs.obj == nil {
		return false, apierrors.NewInternalError(fmt.Errorf("admission webhook %q attempted to modify the object, which is not supported for this operation", h.name))
	}
	before, err := encode(attrs.typ, attrs.obj)
	if err != nil {
		return false, err
	}
	patched, err := p.Apply(before)
	if err != nil {
		return false, apierrors.NewInternalError(err)
	}
	d, err := decodeBody(attrs.typ, patched)
	if err != nil {
		return false, apierrors.NewInternalError(err)
	}
	after, err := encode(attrs.typ, d.obj)
	if err != nil {
		return false, err
	}
	attrs.obj = d.obj
	return !bytes.Equal(before, after), nil
}

// deniedBy is the apiserver's error for a webhook's refusal (webhook errors.ToStatusErr): the
// webhook's status, at least 400 and Failure, its message prefixed with who denied the request.
func deniedBy(webhook string, result *metav1.Status) error {
	st := metav1.Status{Status: metav1.StatusFailure}
	if result != nil {
		st = *result
	}
	st.TypeMeta = metav1.TypeMeta{}
	if st.Code < http.StatusBadRequest {
		st.Code = http.StatusBadRequest
	}
	if st.Status == "" || st.Status == metav1.StatusSuccess {
		st.Status = metav1.StatusFailure
	}
	prefix := fmt.Sprintf("admission webhook %q denied the request", webhook)
	switch {
	case st.Message != "":
		st.Message = prefix + ": " + st.Message
	case st.Reason != "":
		st.Message = prefix + ": " + string(st.Reason)
	default:
		st.Message = prefix + " without explanation"
	}
	return &apierrors.StatusError{ErrStatus: st}
}

// reviewOf is the AdmissionReview of the attributes, as the apiserver's CreateV1AdmissionReview
// builds it.
func reviewOf(a *admissionRequest, attrs *admissionAttributes, uid types.UID) ([]byte, error) {
	req, err := requestOf(a, attrs)
	if err != nil {
		return nil, err
	}
	req.UID = uid
	return json.Marshal(&admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{Kind: "AdmissionReview", APIVersion: admissionv1.SchemeGroupVersion.String()},
		Request:  req,
	})
}

// requestOf is the AdmissionRequest of the attributes, without a uid; the kind and resource are
// the request's, the fake serving one version of each.
func requestOf(a *admissionRequest, attrs *admissionAttributes) (*admissionv1.AdmissionRequest, error) {
	raw := func(obj runtime.Object) (runtime.RawExtension, error) {
		if obj == nil {
			return runtime.RawExtension{}, nil
		}
		b, err := encode(attrs.typ, obj)
		return runtime.RawExtension{Raw: b}, err
	}
	object, err := raw(attrs.obj)
	if err != nil {
		return nil, err
	}
	oldObject, err := raw(attrs.old)
	if err != nil {
		return nil, err
	}
	options, err := json.Marshal(a.operationOptions(attrs.op))
	if err != nil {
		return nil, err
	}
	gvk, gvr := attrs.typ.gvk, attrs.gvr
	kind := metav1.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind}
	resource := metav1.GroupVersionResource{Group: gvr.Group, Version: gvr.Version, Resource: gvr.Resource}
	dry := a.isDryRun()
	return &admissionv1.AdmissionRequest{
		Kind: kind, Resource: resource, SubResource: attrs.subresource,
		RequestKind: &kind, RequestResource: &resource, RequestSubResource: attrs.subresource,
		Name: attrs.name, Namespace: attrs.namespace, Operation: attrs.op, UserInfo: webhookUser,
		Object: object, OldObject: oldObject, DryRun: &dry, Options: runtime.RawExtension{Raw: options},
	}, nil
}

// webhookURL is where a webhook is called: its url, or its service's address as
// Options.WebhookServiceURL resolves it. Without a resolver, a service is reachable only as the
// apiserver would fail to reach it: missing.
func (s *Server) webhookURL(ctx context.Context, cc admissionregistrationv1.WebhookClientConfig) (string, error) {
	if cc.URL != nil {
		return *cc.URL, nil
	}
	if cc.Service == nil {
		return "", errors.New("webhook has no url and no service")
	}
	svc := cc.Service
	port := int32(443)
	if svc.Port != nil {
		port = *svc.Port
	}
	path := ""
	if svc.Path != nil {
		path = *svc.Path
	}
	if s.opts.WebhookServiceURL != nil {
		if base := s.opts.WebhookServiceURL(svc.Namespace, svc.Name, port); base != "" {
			return strings.TrimSuffix(base, "/") + path, nil
		}
	}
	addr := fmt.Sprintf("https://%s.%s.svc:%d%s", svc.Name, svc.Namespace, port, path)
	b, err := current(ctx, s.servedGR(schema.GroupResource{Resource: "services"}), svc.Namespace, svc.Name)
	if err == nil && b == nil {
		err = fmt.Errorf("service %q not found", svc.Name)
	} else if err == nil {
		err = fmt.Errorf("service %q is not reachable from the fake (Options.WebhookServiceURL resolves services)", svc.Name)
	}
	return addr, err
}

// post sends the review to the webhook within its timeout and decodes the answer as the
// apiserver's webhook client does.
func (s *Server) post(ctx context.Context, h *webhook, review []byte) (*admissionv1.AdmissionResponse, error) {
	timeout := 10 * time.Second
	if h.timeout != nil {
		timeout = time.Duration(*h.timeout) * time.Second
	}
	url, err := s.webhookURL(ctx, h.clientConfig)
	// The apiserver tells the webhook its deadline in the query, and its errors name the URL with it.
	url += "?timeout=" + timeout.String()
	if err != nil {
		return nil, fmt.Errorf("Post %q: %w", url, err)
	}
	client, err := webhookClient(h.clientConfig.CABundle)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(review))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, */*")
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxWebhookResponse))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode < http.StatusOK || resp.StatusCode > http.StatusPartialContent {
		return nil, responseError(resp, body)
	}
	js, err := yaml.YAMLToJSON(body)
	if err != nil {
		return nil, err
	}
	gvk, err := serializerjson.DefaultMetaFactory.Interpret(js)
	if err != nil {
		return nil, err
	}
	if gvk.Kind == "" {
		return nil, runtime.NewMissingKindErr(string(body))
	}
	var out admissionv1.AdmissionReview
	if err := json.Unmarshal(js, &out); err != nil {
		return nil, err
	}
	if want := admissionv1.SchemeGroupVersion.WithKind("AdmissionReview"); *gvk != want {
		return nil, fmt.Errorf("expected webhook response of %v, got %v", want, *gvk)
	}
	return out.Response, nil
}

// errNoResponse is an AdmissionReview without a response.
var errNoResponse = errors.New("webhook response was absent")

// responseError is client-go's error for an answer that is not a success: the Status it carries,
// else a generic error with the code and the text of the body.
func responseError(resp *http.Response, body []byte) error {
	var st metav1.Status
	if json.Unmarshal(body, &st) == nil && st.Kind == "Status" && st.Status == metav1.StatusFailure {
		return &apierrors.StatusError{ErrStatus: st}
	}
	message := "unknown"
	if ct := resp.Header.Get("Content-Type"); ct == "" || strings.HasPrefix(ct, "text/") {
		message = strings.TrimSpace(string(body))
	}
	return apierrors.NewGenericServerResponse(resp.StatusCode, http.MethodPost, schema.GroupResource{}, "", message, 0, true)
}

// verifyResponse is the apiserver's check of a webhook's response (VerifyAdmissionResponse).
func verifyResponse(resp *admissionv1.AdmissionResponse, uid types.UID, mutating bool) error {
	switch {
	case resp == nil:
		return errNoResponse
	case resp.UID != uid:
		return fmt.Errorf("expected response.uid=%q, got %q", uid, resp.UID)
	case !mutating && len(resp.Patch) > 0:
		return errors.New("validating webhook may not return response.patch")
	case !mutating && resp.PatchType != nil:
		return errors.New("validating webhook may not return response.patchType")
	case len(resp.Patch) > 0 && resp.PatchType == nil:
		return errors.New("webhook returned response.patch but not response.patchType")
	case len(resp.Patch) == 0 && resp.PatchType != nil:
		return errors.New("webhook returned response.patchType but not response.patch")
	case resp.PatchType != nil && *resp.PatchType != admissionv1.PatchTypeJSONPatch:
		return fmt.Errorf("webhook returned invalid response.patchType of %q", *resp.PatchType)
	}
	return nil
}

// webhookClients are the HTTP clients of webhooks, one per CA bundle, so that connections are
// reused across calls.
var webhookClients sync.Map // string(caBundle) → *http.Client

// webhookClient is the client of a webhook that trusts caBundle (the system's roots when empty).
func webhookClient(caBundle []byte) (*http.Client, error) {
	if c, ok := webhookClients.Load(string(caBundle)); ok {
		return c.(*http.Client), nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if len(caBundle) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(caBundle) {
			return nil, errors.New("unable to load root certificates: no certificates in caBundle")
		}
		cfg.RootCAs = pool
	}
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: cfg, Proxy: nil, ForceAttemptHTTP2: true}}
	actual, _ := webhookClients.LoadOrStore(string(caBundle), c)
	return actual.(*http.Client), nil
}
