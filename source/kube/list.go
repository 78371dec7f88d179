package kube

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/watchcache/watchcache/rvclock"
)

// list reads the resource in pages and replaces the cache's content with it. The first page is a
// consistent read (resourceVersion unset, rule 1.8); continue tokens pin the other pages at its
// resourceVersion (rule 2.8). If a token expires while paging (410, rule 2.9) the list starts over
// without a limit, in one response, as client-go's pager does (FullListIfExpired).
func (s *feed) list(ctx context.Context) (uint64, error) {
	start := time.Now()
	limit := s.opts.PageSize
	var (
		items [][]byte
		rv    uint64
		pages int
		cont  string
		pack  *packer
	)
	if s.opts.PackLists {
		pack = &packer{}
	}
	for {
		req := s.request()
		if limit > 0 {
			req = req.Param("limit", strconv.FormatInt(limit, 10))
		}
		if cont != "" {
			req = req.Param("continue", cont)
		}
		body, err := req.DoRaw(ctx)
		if err != nil {
			err = statusFromBody(body, err)
			if cont != "" && limit > 0 && isExpired(err) {
				s.log.Info("kube: continue token expired while paging; listing in one response", "pages", pages, "err", err)
				limit, cont, items, rv, pages = 0, "", nil, 0, 0
				if pack != nil {
					pack = &packer{}
				}
				continue
			}
			return 0, fmt.Errorf("kube: list %s (page %d): %w", s.resource, pages+1, err)
		}
		pages++
		page, err := parseList(body)
		if err != nil {
			return 0, fmt.Errorf("kube: list %s (page %d): %w", s.resource, pages, err)
		}
		if rv == 0 {
			rv = page.rv
		}
		// Each page's objects are transformed and packed as it arrives, so that a list holds its
		// objects once, not also in the form they arrived in.
		for i, it := range page.items {
			if t := s.opts.Transform; t != nil {
				it = t(it)
			}
			if pack != nil {
				it = pack.copy(it)
			}
			page.items[i] = it
		}
		items = append(items, page.items...)
		if page.cont == "" {
			break
		}
		cont = page.cont
	}
	if held := s.cache.ResourceVersion(); rv < held {
		// A server behind the one the cache followed (another apiserver of an HA cluster, a restored
		// etcd): replacing would move the cache's resourceVersion backwards under its readers.
		return 0, fmt.Errorf("kube: list %s at resourceVersion %d: %w (the cache is at %d)", s.resource, rv, ErrListBehind, held)
	}
	if err := s.cache.Replace(items, rv); err != nil {
		if errors.Is(err, rvclock.ErrStopped) {
			return 0, err
		}
		return 0, fmt.Errorf("kube: replace %s at resourceVersion %d: %w", s.resource, rv, err)
	}
	s.stats.lists.Add(1)
	s.log.Info("kube: listed", "resourceVersion", rv, "objects", len(items), "pages", pages, "elapsed", time.Since(start).Round(time.Millisecond))
	return rv, nil
}

// listPage is what list keeps of one response.
type listPage struct {
	items [][]byte
	rv    uint64
	cont  string
}

// parseList reads a list response: metadata.resourceVersion, metadata.continue and the items, each
// copied into its own slice, with kind and apiVersion written in when the item lacks them (a
// kube-apiserver's typed lists omit them; see the package doc).
func parseList(body []byte) (listPage, error) {
	var (
		page     listPage
		kind     string
		version  string
		itemsRes gjson.Result
		rvText   string
	)
	top := gjson.ParseBytes(body)
	if !top.IsObject() {
		return page, malformed("list is not a JSON object")
	}
	top.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "kind":
			kind = v.String()
		case "apiVersion":
			version = v.String()
		case "metadata":
			rvText = v.Get("resourceVersion").String()
			page.cont = v.Get("continue").String()
		case "items":
			itemsRes = v
		}
		return true
	})
	rv, err := strconv.ParseUint(rvText, 10, 64)
	if err != nil || rv == 0 {
		return page, malformed("list resourceVersion %q", rvText)
	}
	page.rv = rv
	if !itemsRes.IsArray() {
		if itemsRes.Type != gjson.Null { // absent or null: an empty list
			return page, malformed("items is not an array")
		}
		return page, nil
	}
	prefix := itemTypeMeta(kind, version)
	var ierr error
	itemsRes.ForEach(func(_, it gjson.Result) bool {
		if !it.IsObject() || it.Index <= 0 {
			ierr = malformed("list item is not an object")
			return false
		}
		raw := body[it.Index : it.Index+len(it.Raw)]
		page.items = append(page.items, withTypeMeta(raw, prefix))
		return true
	})
	return page, ierr
}

// itemTypeMeta is the `"kind":..,"apiVersion":..` to write into items of a list of kind, or nil
// when the list's kind does not name its items. Kind first, as the apiserver writes an object on
// its own (a get, a watch event's object), so an item stored from a list has the bytes the same
// object has when it arrives by watch.
func itemTypeMeta(kind, version string) []byte {
	item, ok := strings.CutSuffix(kind, "List")
	if !ok || item == "" || version == "" {
		return nil
	}
	v, _ := json.Marshal(version) // strings always marshal
	k, _ := json.Marshal(item)
	return fmt.Appendf(nil, `"kind":%s,"apiVersion":%s`, k, v)
}

// withTypeMeta returns a copy of item with typeMeta inserted first when it has no "kind".
func withTypeMeta(item, typeMeta []byte) []byte {
	if typeMeta == nil || gjson.GetBytes(item, "kind").Exists() {
		return bytes.Clone(item)
	}
	out := make([]byte, 0, len(item)+len(typeMeta)+1)
	out = append(out, '{')
	out = append(out, typeMeta...)
	rest := bytes.TrimLeft(item[1:], " \t\r\n")
	if len(rest) > 0 && rest[0] != '}' {
		out = append(out, ',')
	}
	return append(out, rest...)
}

// statusFromBody returns the Status an error response carries, as an *apierrors.StatusError with
// the server's reason, message and details, or err when the body is no failure Status. A
// rest.Request's DoRaw keeps the body of a failed response but reports only its code ("the server
// responded with the status code 410 but did not return more information"), though a kube-apiserver
// always answers with a Status.
func statusFromBody(body []byte, err error) error {
	if len(body) == 0 {
		return err
	}
	var st metav1.Status
	if json.Unmarshal(body, &st) != nil || st.Kind != "Status" || st.Status != metav1.StatusFailure || st.Code == 0 {
		return err
	}
	return &apierrors.StatusError{ErrStatus: st}
}
