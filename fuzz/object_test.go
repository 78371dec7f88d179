package fuzz

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Object is one version of one pod as the model holds it: the bytes as fed, and the labels and
// selectable field values read from them by encoding/json, independently of package selection.
type Object struct {
	Key    string // storage key "/<namespace>/<name>": the event's, or made from the metadata (key.go)
	RV     uint64
	Raw    []byte
	Labels map[string]string
	Fields map[string]string // by canonical field name; absent fields are "" when matched

	ownRV string         // metadata.resourceVersion as written
	root  map[string]any // the decoded object, for registered fields
}

// podFields are the pod field selectors of rules 4.3/4.4, with how each value is read. status.podIPs
// is accepted but never has a value (rule 4.4).
var podFields = []string{
	"metadata.name", "metadata.namespace",
	"spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName", "spec.hostNetwork",
	"status.phase", "status.podIP", "status.podIPs", "status.nominatedNodeName",
}

// errObject is returned for objects the model rejects.
var errObject = errors.New("model: malformed object")

// decodeObject reads a pod's identity, labels and selectable fields with encoding/json.
func decodeObject(raw []byte) (Object, error) {
	if !json.Valid(raw) {
		return Object{}, fmt.Errorf("%w: invalid JSON", errObject)
	}
	if !utf8.Valid(raw) {
		return Object{}, fmt.Errorf("%w: invalid UTF-8", errObject) // decoders would read U+FFFD
	}
	if topObjects(raw, "metadata") > 1 {
		// Decoders disagree on a repeated object (typed ones merge, maps keep the last).
		return Object{}, fmt.Errorf("%w: metadata is repeated", errObject)
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var top any
	if err := d.Decode(&top); err != nil {
		return Object{}, fmt.Errorf("%w: %v", errObject, err)
	}
	root, ok := top.(map[string]any)
	if !ok {
		return Object{}, fmt.Errorf("%w: not an object", errObject)
	}
	md, ok := root["metadata"].(map[string]any)
	if !ok {
		return Object{}, fmt.Errorf("%w: no metadata object", errObject)
	}
	name, ok := md["name"].(string)
	if !ok || name == "" {
		return Object{}, fmt.Errorf("%w: no metadata.name", errObject)
	}
	ns, err := optString(md, "namespace")
	if err != nil {
		return Object{}, err
	}
	own, err := optString(md, "resourceVersion")
	if err != nil {
		return Object{}, err
	}
	o := Object{Key: "/" + ns + "/" + name, Raw: raw, Labels: map[string]string{}, Fields: map[string]string{}, ownRV: own, root: root}
	switch ls := md["labels"].(type) {
	case nil:
	case map[string]any:
		for k, v := range ls {
			s, ok := v.(string)
			if !ok {
				return Object{}, fmt.Errorf("%w: label %q is not a string", errObject, k)
			}
			o.Labels[k] = s
		}
	default:
		return Object{}, fmt.Errorf("%w: metadata.labels is not an object", errObject)
	}
	spec, _ := root["spec"].(map[string]any)
	status, _ := root["status"].(map[string]any)
	str := func(m map[string]any, k string) string { s, _ := m[k].(string); return s }
	o.Fields["metadata.name"] = name
	o.Fields["metadata.namespace"] = ns
	o.Fields["spec.nodeName"] = str(spec, "nodeName")
	o.Fields["spec.restartPolicy"] = str(spec, "restartPolicy")
	o.Fields["spec.schedulerName"] = str(spec, "schedulerName")
	// v1 → internal conversion: serviceAccountName, else the deprecated serviceAccount.
	o.Fields["spec.serviceAccountName"] = str(spec, "serviceAccountName")
	if o.Fields["spec.serviceAccountName"] == "" {
		o.Fields["spec.serviceAccountName"] = str(spec, "serviceAccount")
	}
	o.Fields["spec.hostNetwork"] = "false"
	if b, _ := spec["hostNetwork"].(bool); b {
		o.Fields["spec.hostNetwork"] = "true"
	}
	o.Fields["status.phase"] = str(status, "phase")
	o.Fields["status.nominatedNodeName"] = str(status, "nominatedNodeName")
	// v1 → internal conversion makes podIP authoritative, then the field set takes podIPs[0].
	o.Fields["status.podIP"] = str(status, "podIP")
	if o.Fields["status.podIP"] == "" {
		if ips, _ := status["podIPs"].([]any); len(ips) > 0 {
			first, _ := ips[0].(map[string]any)
			o.Fields["status.podIP"] = str(first, "ip")
		}
	}
	return o, nil
}

func optString(m map[string]any, k string) (string, error) {
	switch v := m[k].(type) {
	case nil:
		return "", nil
	case string:
		return v, nil
	default:
		return "", fmt.Errorf("%w: metadata.%s is not a string", errObject, k)
	}
}

// customField is a field registered at runtime (Cache.RegisterField), read from a dotted path of
// plain keys and rendered as the cache documents: a string as is, a number as its JSON text, a
// boolean as "true"/"false", missing or null as "".
type customField struct{ name, path string }

func (c customField) value(root map[string]any) string {
	var v any = root
	for _, p := range strings.Split(c.path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		v = m[p]
	}
	switch v := v.(type) {
	case string:
		return v
	case json.Number:
		return v.String()
	case bool:
		return strconv.FormatBool(v)
	case nil:
		return ""
	}
	data, _ := json.Marshal(v)
	return string(data)
}

// validSegment is rule 6.3's path-segment check for names and namespaces.
func validSegment(s string) bool {
	return s != "" && s != "." && s != ".." && !strings.ContainsAny(s, "/%")
}

// stampRV returns raw with the value of its (single) metadata.resourceVersion replaced by rv: the
// previous object of a selector exit is sent stamped with the event's RV (rule 5.5). The model's
// objects are generated with exactly one "resourceVersion" key.
func stampRV(raw []byte, old, rv uint64) []byte {
	from := []byte(`"resourceVersion":"` + strconv.FormatUint(old, 10) + `"`)
	to := []byte(`"resourceVersion":"` + strconv.FormatUint(rv, 10) + `"`)
	return bytes.Replace(raw, from, to, 1)
}

// topObjects counts the top-level members named key whose value is a JSON object.
func topObjects(raw []byte, key string) int {
	d := json.NewDecoder(bytes.NewReader(raw))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return 0
	}
	n := 0
	for d.More() {
		k, err := d.Token()
		if err != nil {
			return n
		}
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return n
		}
		if k == key && len(v) > 0 && v[0] == '{' {
			n++
		}
	}
	return n
}
