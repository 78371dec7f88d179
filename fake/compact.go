package fake

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/watchcache/watchcache/internal/wire"
)

// Compact makes the server answer as a kube-apiserver reading etcd (--watch-cache=false) answers
// after etcd compacted its history at the current resourceVersion R (reference/observed-faults.md,
// "Compaction"): a list continuing a token whose resourceVersion is below R gets the 410 "continue
// parameter is too old" with a token that continues at the latest state; a list at an exact
// resourceVersion below R (resourceVersionMatch=Exact, or a resourceVersion with a limit and no
// match, which the apiserver reads at that revision) gets the 410 "The resourceVersion for the
// provided list is too old."; a watch from a resourceVersion below R-1 (etcd watches from the next
// revision) gets a 200 whose one event is the 410 ERROR. Gets, lists at resourceVersion 0 or
// NotOlderThan, and running watches are unaffected, as they are by a compaction.
//
// A kube-apiserver with its watch cache on (the default) answers the same two lists so, but serves
// such a watch from its cache's own window; Compact is the stricter etcd path, the one a client
// must survive. The caches' window (Options.WindowEvents) still expires older resourceVersions as
// the cache does. Compact returns R.
func (s *Server) Compact() uint64 {
	rv := s.rv.Load()
	for {
		old := s.compactedRV.Load()
		if old >= rv || s.compactedRV.CompareAndSwap(old, rv) {
			return max(old, rv)
		}
	}
}

// compacted answers a request that reads below the last compaction, and reports whether it did.
func (s *Server) compacted(w http.ResponseWriter, r *http.Request, a *Request) bool {
	floor := s.compactedRV.Load()
	if floor == 0 || (a.Verb != "list" && a.Verb != "watch") {
		return false
	}
	q := r.URL.Query()
	if a.Verb == "watch" {
		rv, err := strconv.ParseUint(q.Get("resourceVersion"), 10, 64)
		if err != nil || rv == 0 || rv+1 >= floor {
			return false
		}
		c := &watchCutter{ResponseWriter: w, expire: true}
		s.serveAPI(c, r) // the read path validates the request first; its stream is cut at once
		return true
	}
	if tok := q.Get("continue"); tok != "" {
		rv, start, ok := decodeToken(tok)
		if !ok || rv <= 0 || uint64(rv) >= floor {
			return false // an invalid token gets the read path's 400; rv -1 reads the latest state
		}
		st := apierrors.NewResourceExpired(msgInconsistentContinue)
		st.ErrStatus.ListMeta.Continue = inconsistentToken(start)
		writeError(&encodedWriter{ResponseWriter: w, enc: wire.ErrorEncoding(r.Header.Get("Accept"))}, st)
		return true
	}
	rv, err := strconv.ParseUint(q.Get("resourceVersion"), 10, 64)
	if err != nil || rv == 0 || rv >= floor {
		return false
	}
	match := q.Get("resourceVersionMatch")
	limit, _ := strconv.ParseInt(q.Get("limit"), 10, 64)
	if match == "Exact" || (match == "" && limit > 0) {
		writeError(&encodedWriter{ResponseWriter: w, enc: wire.ErrorEncoding(r.Header.Get("Accept"))}, apierrors.NewResourceExpired(msgListExpired))
		return true
	}
	return false
}

// token is the apiserver's continue token: base64.RawURLEncoding of this struct's compact JSON.
type token struct {
	APIVersion      string `json:"v"`
	ResourceVersion int64  `json:"rv"`
	StartKey        string `json:"start"`
}

// decodeToken returns a continue token's resourceVersion and start key; ok is false for a token the
// apiserver would refuse, which the read path answers.
func decodeToken(tok string) (rv int64, start string, ok bool) {
	b, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil {
		return 0, "", false
	}
	var t token
	if json.Unmarshal(b, &t) != nil || t.APIVersion != "meta.k8s.io/v1" || t.StartKey == "" {
		return 0, "", false
	}
	return t.ResourceVersion, t.StartKey, true
}

// inconsistentToken is the token of the etcd path's 410: rv -1 and the start in the etcd form,
// relative to the list's prefix without a leading '/' ({"v":"meta.k8s.io/v1","rv":-1,"start":"cm-2\u0000"}).
func inconsistentToken(start string) string {
	if s := strings.TrimPrefix(start, "/"); s != "" {
		start = s
	}
	b, _ := json.Marshal(token{APIVersion: "meta.k8s.io/v1", ResourceVersion: -1, StartKey: start})
	return base64.RawURLEncoding.EncodeToString(b)
}
