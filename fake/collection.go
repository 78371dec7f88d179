package fake

import (
	"encoding/json"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/watchcache/watchcache/apistatus"
	"github.com/watchcache/watchcache/watchcache"
)

// deleteCollection serves DELETE on a collection: every object the label and field selectors
// select is deleted as DELETE of each would (each its own event), and the answer is the list of
// the selected objects as they were before, as the apiserver's DeleteCollection answers.
func (s *Server) deleteCollection(w http.ResponseWriter, r *http.Request, t target) {
	if !t.res.hasVerb("deletecollection") {
		writeError(w, methodNotSupported(t, r.Method))
		return
	}
	var lo metav1.ListOptions
	if err := scheme.ParameterCodec.DecodeParameters(r.URL.Query(), optionsVersion, &lo); err != nil {
		writeError(w, apierrors.NewBadRequest(err.Error()))
		return
	}
	opts, err := deleteOptions(r)
	if err != nil {
		writeError(w, err)
		return
	}
	// Without a webhook configuration no webhook can be called, nor configured while s.mu is held:
	// the list and its deletes run under it, one atomic step, with no object lock taken. With
	// one, the apiserver's DeleteCollection holds nothing across its items: it lists them, then
	// deletes each as a single delete does (deleteAdmitted), so a webhook may write through the
	// server, and an item deleted meanwhile is skipped.
	s.mu.Lock()
	locked := !s.anyWebhooks()
	if locked {
		defer s.mu.Unlock()
	} else {
		s.mu.Unlock()
	}
	// A limit deletes one page, answered with its continue token, as the generic store's
	// DeleteCollection stops after the first list when the request sets one.
	rv := lo.ResourceVersion
	if rv == "" && lo.Continue == "" {
		// The latest state the cache has: commit applies each event to its cache before it
		// answers, so every write answered before this request is in it.
		rv = "0"
	}
	page, err := t.res.cache.List(r.Context(), watchcache.ListOptions{
		Namespace: t.namespace, LabelSelector: lo.LabelSelector, FieldSelector: lo.FieldSelector,
		ResourceVersion: rv, ResourceVersionMatch: string(lo.ResourceVersionMatch), Limit: lo.Limit, Continue: lo.Continue,
	})
	if err != nil {
		writeError(w, apistatus.FromError(err))
		return
	}
	// The answer is the list as it was read, before the deletes: the generic store answers with
	// what it listed, not with what each delete returned.
	items := make([]json.RawMessage, 0, len(page.Items))
	t.admit = &admissionRequest{ctx: r.Context(), w: w, collection: true}
	for _, it := range page.Items {
		name, ns := objectName(it)
		if locked {
			_, err = s.deleteLocked(r.Context(), t.res, ns, name, opts, true)
		} else {
			item := t
			item.namespace = ns // a list of all namespaces' objects names each one's
			_, err = s.deleteAdmitted(r.Context(), item, name, opts, true)
		}
		if err != nil && !apierrors.IsNotFound(err) {
			writeError(w, err)
			return
		}
		items = append(items, withoutTypeMeta(it))
	}
	list := struct {
		Kind       string            `json:"kind"`
		APIVersion string            `json:"apiVersion"`
		Metadata   metav1.ListMeta   `json:"metadata"`
		Items      []json.RawMessage `json:"items"`
	}{Kind: t.res.gvk.Kind + "List", APIVersion: t.res.gvk.GroupVersion().String(), Items: items,
		Metadata: metav1.ListMeta{ResourceVersion: rvString(page.ResourceVersion), Continue: page.Continue, RemainingItemCount: page.RemainingItemCount}}
	b, err := json.Marshal(&list)
	if err != nil {
		writeError(w, internalError("encode %s list: %v", t.res.gvk.Kind, err))
		return
	}
	addWarnings(w, deleteWarnings(t.res, opts))
	writeBody(w, http.StatusOK, b)
}

// objectName reads an object's name and namespace.
func objectName(b []byte) (name, namespace string) {
	var m struct {
		Metadata struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(b, &m)
	return m.Metadata.Name, m.Metadata.Namespace
}

// withoutTypeMeta returns an object's JSON without its leading kind and apiVersion, as the items of
// a typed list are encoded (the fake's objects start with exactly those two fields).
func withoutTypeMeta(b []byte) []byte {
	var head struct {
		Kind       string `json:"kind"`
		APIVersion string `json:"apiVersion"`
	}
	if json.Unmarshal(b, &head) != nil {
		return b
	}
	prefix := `{"kind":` + strconvQuote(head.Kind) + `,"apiVersion":` + strconvQuote(head.APIVersion) + `,`
	if len(b) > len(prefix) && string(b[:len(prefix)]) == prefix {
		return append([]byte{'{'}, b[len(prefix):]...)
	}
	return b
}

func strconvQuote(s string) string {
	q, _ := json.Marshal(s)
	return string(q)
}
