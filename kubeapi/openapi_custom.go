package kubeapi

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/tidwall/gjson"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	builderutil "k8s.io/kube-openapi/pkg/builder3/util"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// The OpenAPI of resources without a recorded document (custom resources): what the
// apiextensions apiserver publishes for a CRD version (apiextensions-apiserver
// pkg/controller/openapi/builder, BuildOpenAPIV3 and BuildOpenAPIV2), rebuilt here with
// kube-openapi's types, because that builder goes through go-restful routes and k8s.io/apiserver's
// endpoint installer, which this package does not import. The routes it declares are reproduced
// operation by operation — the same descriptions, operation ids, tags, parameters (from the option
// structs' fields and swagger docs, as the installer's AddObjectParams reads them), responses and
// media types — and marshalled by the same types, so that the documents are the apiserver's byte
// for byte (fake's TestCRDOpenAPIAsRecorded compares them with kube-apiserver 1.37.2's). The meta
// and autoscaling definitions they refer to are taken from the recorded built-in documents, which
// hold the same generated schemas (DeleteOptions with apiextensions' own list of group/versions).

// Model is a resource's OpenAPI schema where no recorded document has it, as the apiextensions
// apiserver publishes a CRD version's. The schemas are not modified by the Server and must not be
// modified after Register.
type Model struct {
	// V3 is the objects' schema in /openapi/v3: the CRD version's structural schema, unfolded
	// (int-or-string as its anyOf), without apiVersion, kind and metadata, which are added.
	// nil publishes an object of any content.
	V3 *spec.Schema
	// V2 is the schema in /openapi/v2: the structural schema as apiextensions converts it for v2
	// (ToStructuralOpenAPIV2) with defaults pruned. nil publishes an object of any content (what
	// apiextensions publishes for a schema that preserves unknown fields at its root).
	V2 *spec.Schema
	// SelectableFields are the field selectors of the resource ("spec.color"), listed in the
	// x-kubernetes-selectable-fields extension of the object's and the list's schemas.
	SelectableFields []string
}

// Definition names and references of the meta types the builder adds.
const (
	objectMetaName = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
	listMetaName   = "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta"
	statusName     = "io.k8s.apimachinery.pkg.apis.meta.v1.Status"
	patchName      = "io.k8s.apimachinery.pkg.apis.meta.v1.Patch"
	deleteOptsName = "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions"
	scaleName      = "io.k8s.api.autoscaling.v1.Scale"
)

// The descriptions apiextensions gives the properties it adds: TypeMeta's apiVersion and kind
// (generated openapi of metav1.TypeMeta) and PartialObjectMetadata[List]'s metadata (their
// SwaggerDoc), the embedded resources' own.
const (
	apiVersionDoc         = "APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources"
	kindDoc               = "Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"
	embeddedAPIVersionDoc = "apiVersion defines the versioned schema of this representation of an object. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources"
	embeddedKindDoc       = "kind is a string value representing the type of this object. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"
)

// modelName is a kind's definition name: the group's labels reversed, then version and kind
// ("com.example.env.v1.Widget").
func modelName(group, version, kind string) string {
	parts := strings.Split(group, ".")
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return strings.Join(parts, ".") + "." + version + "." + kind
}

// objectSchema is the published schema of a custom resource's objects (apiextensions'
// buildKubeNative): the CRD's schema with apiVersion, kind and metadata, and the GVK extension.
func objectSchema(info ResourceInfo, v2 bool) *spec.Schema {
	m := info.Model
	src := m.V3
	if v2 {
		src = m.V2
	}
	var s *spec.Schema
	if src == nil {
		s = &spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"object"}}}
	} else {
		s = deepCopySchema(src)
		s.SetProperty("metadata", *spec.RefSchema(definitionRef(objectMetaName, v2)).WithDescription(metav1.PartialObjectMetadata{}.SwaggerDoc()["metadata"]))
		s.SetProperty("apiVersion", stringProperty(apiVersionDoc))
		s.SetProperty("kind", stringProperty(kindDoc))
		addEmbeddedProperties(s, v2)
	}
	if !v2 {
		// kube-openapi's v3 builder wraps a reference with siblings (a description) in allOf.
		s = builderutil.WrapRefs(s)
	}
	s.AddExtension("x-kubernetes-group-version-kind", []any{map[string]any{"group": info.Group, "version": info.Version, "kind": info.Kind}})
	addSelectableFields(s, m.SelectableFields)
	return s
}

// listSchema is the published schema of a custom resource's lists (apiextensions'
// buildListSchema).
func listSchema(info ResourceInfo, v2 bool) *spec.Schema {
	items := spec.RefSchema(definitionRef(modelName(info.Group, info.Version, info.Kind), v2))
	s := new(spec.Schema).
		Typed("object", "").
		WithDescription(fmt.Sprintf("%s is a list of %s", info.ListKind, info.Kind)).
		WithRequired("items").
		SetProperty("items", *spec.ArrayProperty(items).WithDescription(fmt.Sprintf("List of %s. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md", info.Resource))).
		SetProperty("metadata", *spec.RefSchema(definitionRef(listMetaName, v2)).WithDescription(metav1.PartialObjectMetadataList{}.SwaggerDoc()["metadata"]))
	s.SetProperty("apiVersion", stringProperty(apiVersionDoc))
	s.SetProperty("kind", stringProperty(kindDoc))
	s.AddExtension("x-kubernetes-group-version-kind", []map[string]string{{"group": info.Group, "version": info.Version, "kind": info.ListKind}})
	addSelectableFields(s, info.Model.SelectableFields)
	if !v2 {
		s = builderutil.WrapRefs(s)
	}
	return s
}

func addSelectableFields(s *spec.Schema, fields []string) {
	if len(fields) == 0 {
		return
	}
	out := make([]any, len(fields))
	for i, f := range fields {
		out[i] = map[string]any{"fieldPath": f}
	}
	s.AddExtension("x-kubernetes-selectable-fields", out)
}

func stringProperty(desc string) spec.Schema {
	return spec.Schema{SchemaProps: spec.SchemaProps{Description: desc, Type: []string{"string"}}}
}

// definitionRef is the reference to a definition: #/definitions/ in v2, #/components/schemas/ in v3.
func definitionRef(name string, v2 bool) string {
	if v2 {
		return "#/definitions/" + name
	}
	return "#/components/schemas/" + name
}

// addEmbeddedProperties gives each x-kubernetes-embedded-resource object apiVersion, kind and
// metadata, required apiVersion and kind, as apiextensions does; in v2, not below a node that
// preserves unknown fields.
func addEmbeddedProperties(s *spec.Schema, v2 bool) {
	if s == nil {
		return
	}
	for k := range s.Properties {
		p := s.Properties[k]
		addEmbeddedProperties(&p, v2)
		s.Properties[k] = p
	}
	if s.Items != nil {
		addEmbeddedProperties(s.Items.Schema, v2)
	}
	if s.AdditionalProperties != nil {
		addEmbeddedProperties(s.AdditionalProperties.Schema, v2)
	}
	if preserve, ok := s.Extensions.GetBool("x-kubernetes-preserve-unknown-fields"); ok && preserve && v2 {
		return
	}
	if embedded, ok := s.Extensions.GetBool("x-kubernetes-embedded-resource"); ok && embedded {
		s.SetProperty("apiVersion", stringProperty(embeddedAPIVersionDoc))
		s.SetProperty("kind", stringProperty(embeddedKindDoc))
		s.SetProperty("metadata", *spec.RefSchema(definitionRef(objectMetaName, v2)).WithDescription(metav1.PartialObjectMetadata{}.SwaggerDoc()["metadata"]))
		if !slices.Contains(s.Required, "kind") {
			s.Required = append(s.Required, "kind")
		}
		if !slices.Contains(s.Required, "apiVersion") {
			s.Required = append(s.Required, "apiVersion")
		}
	}
}

// deepCopySchema copies a schema through its JSON, so that the properties added do not reach
// the caller's.
func deepCopySchema(s *spec.Schema) *spec.Schema {
	b, err := json.Marshal(s)
	if err != nil {
		return &spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"object"}}}
	}
	var out spec.Schema
	if err := json.Unmarshal(b, &out); err != nil {
		return &spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"object"}}}
	}
	return &out
}

// route is one operation apiextensions declares for a CRD version (its builder's buildRoute).
type route struct {
	method   string
	path     string // below the resource's root: "", "/{name}", "/{name}/status"
	action   string // x-kubernetes-action: list, post, deletecollection, get, put, delete, patch
	verb     string // the operation's verb: list, create, deletecollection, read, replace, delete, patch
	opName   string // the operation name before GetOperationIDAndTags, "" for the usual one
	response string // the definition answered: "object", "list", "status", "scale"
	body     string // the definition read, "" for none: "object", "patch", "scale", "delete"
}

// customRoutes are a custom resource's routes in the builder's order.
func customRoutes(info ResourceInfo) []route {
	var rs []route
	if info.Namespaced {
		rs = append(rs, route{method: "GET", path: "", action: "list", verb: "list", opName: "list" + info.Kind + "ForAllNamespaces", response: "list"})
	}
	rs = append(rs,
		route{method: "GET", path: "", action: "list", verb: "list", response: "list"},
		route{method: "POST", path: "", action: "post", verb: "create", response: "object", body: "object"},
		route{method: "DELETE", path: "", action: "deletecollection", verb: "deletecollection", response: "status"},
		route{method: "GET", path: "/{name}", action: "get", verb: "read", response: "object"},
		route{method: "PUT", path: "/{name}", action: "put", verb: "replace", response: "object", body: "object"},
		route{method: "DELETE", path: "/{name}", action: "delete", verb: "delete", response: "status", body: "delete"},
		route{method: "PATCH", path: "/{name}", action: "patch", verb: "patch", response: "object", body: "patch"},
	)
	for _, sub := range info.Subresources {
		switch strings.TrimPrefix(sub.Name, info.Resource+"/") {
		case "status":
			rs = append(rs,
				route{method: "GET", path: "/{name}/status", action: "get", verb: "read", response: "object"},
				route{method: "PUT", path: "/{name}/status", action: "put", verb: "replace", response: "object", body: "object"},
				route{method: "PATCH", path: "/{name}/status", action: "patch", verb: "patch", response: "object", body: "patch"},
			)
		case "scale":
			rs = append(rs,
				route{method: "GET", path: "/{name}/scale", action: "get", verb: "read", response: "scale"},
				route{method: "PUT", path: "/{name}/scale", action: "put", verb: "replace", response: "scale", body: "scale"},
				route{method: "PATCH", path: "/{name}/scale", action: "patch", verb: "patch", response: "scale", body: "patch"},
			)
		}
	}
	return rs
}

// description is the builder's descriptionFor.
func (r route) description(kind string) string {
	article := ""
	switch r.verb {
	case "list":
		article = " objects of kind "
	case "read", "replace", "patch":
		article = " the specified "
	case "create", "delete":
		article = articleFor(kind)
	}
	sub := subresourceOf(r.path)
	if sub != "" {
		sub = " " + sub + " of"
	}
	switch r.verb {
	case "patch":
		return "partially update" + sub + article + kind
	case "deletecollection":
		if sub != "" {
			sub += " a"
		}
		return "delete collection of" + sub + " " + kind
	}
	return r.verb + sub + article + kind
}

// articleFor is k8s.io/apiserver's GetArticleForNoun(noun, " "): " an " before a vowel, " a "
// otherwise.
func articleFor(noun string) string {
	if len(noun) > 0 && strings.ContainsRune("AEIOUaeiou", rune(noun[0])) {
		return " an "
	}
	return " a "
}

func subresourceOf(path string) string {
	parts := strings.Split(path, "/")
	if len(parts) == 3 {
		return parts[2]
	}
	return ""
}

// consumes are the media types of the route's request body: the patch types for a PATCH, JSON
// and YAML for the rest.
func (r route) consumes() []string {
	if r.method == "PATCH" {
		return []string{"application/json-patch+json", "application/merge-patch+json", "application/apply-patch+yaml"}
	}
	return []string{"application/json", "application/yaml"}
}

// operationName is the route's Operation (before GetOperationIDAndTags).
func (r route) operationName(info ResourceInfo) string {
	if r.opName != "" {
		return r.opName
	}
	ns := ""
	if info.Namespaced {
		ns = "Namespaced"
	}
	sub := subresourceOf(r.path)
	if sub != "" {
		sub = strings.ToUpper(sub[:1]) + sub[1:]
	}
	return r.verb + ns + info.Kind + sub
}

// operationVerbs are k8s.io/apiserver's operation verbs; the shortest one prefixing an operation
// name is its verb ("deletecollectionX" is "delete" + "collectionX").
var operationVerbs = []string{"get", "log", "read", "replace", "patch", "delete", "deletecollection", "watch", "connect", "proxy", "list", "create"}

// operationIDAndTags is k8s.io/apiserver's GetOperationIDAndTags for a path below /apis.
func operationIDAndTags(op, path string) (string, []string) {
	prefix := ""
	for _, v := range operationVerbs {
		if strings.HasPrefix(op, v) && (prefix == "" || len(v) < len(prefix)) {
			prefix = v
		}
	}
	op = op[len(prefix):]
	parts := strings.Split(strings.Trim(path, "/"), "/")
	var tags []string
	if len(parts) >= 2 && parts[0] == "apis" {
		trimmed := strings.TrimSuffix(parts[1], ".k8s.io")
		prefix += validOperationID(trimmed, true)
		tag := validOperationID(trimmed, false)
		if len(parts) > 2 {
			prefix += validOperationID(parts[2], true)
			tag += "_" + validOperationID(parts[2], false)
		}
		tags = append(tags, tag)
	}
	return prefix + validOperationID(op, true), tags
}

// validOperationID is k8s.io/apiserver's ToValidOperationID.
func validOperationID(s string, capitalizeFirst bool) string {
	var b strings.Builder
	capitalize := capitalizeFirst
	for i, r := range s {
		if unicode.IsLetter(r) || r == '_' || (i != 0 && unicode.IsDigit(r)) {
			if capitalize {
				b.WriteRune(unicode.ToUpper(r))
				capitalize = false
			} else {
				b.WriteRune(r)
			}
		} else {
			capitalize = true
		}
	}
	return b.String()
}

// param is one parameter of a route, as go-restful holds it.
type param struct {
	name, in, desc, dataType string
	required                 bool
}

// objectParams are the query parameters the installer's AddObjectParams makes of an options
// struct: one per field with a JSON name that is not a struct (or a pointer to one), typed as
// its typeToJSON, described by the struct's SwaggerDoc.
func objectParams(obj interface{ SwaggerDoc() map[string]string }) []param {
	docs := obj.SwaggerDoc()
	t := reflect.TypeOf(obj)
	var out []param
	for i := range t.NumField() {
		f := t.Field(i)
		k := f.Type.Kind()
		if k == reflect.Interface || k == reflect.Struct {
			continue
		}
		if k == reflect.Pointer {
			if e := f.Type.Elem().Kind(); e == reflect.Interface || e == reflect.Struct {
				continue
			}
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" {
			continue
		}
		out = append(out, param{name: name, in: "query", desc: docs[name], dataType: jsonType(f.Type)})
	}
	return out
}

// jsonType is the installer's typeToJSON for the kinds of the options' fields.
func jsonType(t reflect.Type) string {
	if t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int32, reflect.Int64, reflect.Uint8, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	}
	return "string"
}

// params are a route's parameters, in the order the builder adds them.
func (r route) params(info ResourceInfo, root string) []param {
	ps := []param{{name: "pretty", in: "query", dataType: "string",
		desc: "If 'true', then the output is pretty printed. Defaults to 'false' unless the user-agent indicates a browser or command-line HTTP tool (curl and wget)."}}
	if strings.Contains(root+r.path, "{namespace}") {
		ps = append(ps, param{name: "namespace", in: "path", desc: "object name and auth scope, such as for teams and projects", dataType: "string", required: true})
	}
	if strings.Contains(r.path, "{name}") {
		ps = append(ps, param{name: "name", in: "path", desc: "name of the " + info.Kind, dataType: "string", required: true})
	}
	switch r.action {
	case "get":
		ps = append(ps, objectParams(metav1.GetOptions{})...)
	case "list", "deletecollection":
		ps = append(ps, objectParams(metav1.ListOptions{})...)
	case "put":
		ps = append(ps, objectParams(metav1.UpdateOptions{})...)
	case "patch":
		ps = append(ps, objectParams(metav1.PatchOptions{})...)
	case "post":
		ps = append(ps, objectParams(metav1.CreateOptions{})...)
	case "delete":
		ps = append(ps, objectParams(metav1.DeleteOptions{})...)
	}
	return ps
}

func (p param) v3() *spec3.Parameter {
	return &spec3.Parameter{ParameterProps: spec3.ParameterProps{
		Name: p.name, In: p.in, Description: p.desc, Required: p.required,
		Schema: &spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{p.dataType}, UniqueItems: true}},
	}}
}

func sortV3Params(ps []*spec3.Parameter) {
	sort.SliceStable(ps, func(i, j int) bool {
		return ps[i].Name < ps[j].Name || (ps[i].Name == ps[j].Name && ps[i].In < ps[j].In)
	})
}

// commonParams are the parameters every one of a path's routes has, which move to the path
// (builder3's findCommonParameters), by their key.
func commonParams(info ResourceInfo, routes []route, root string) map[string]param {
	count := map[string]int{}
	all := map[string]param{}
	for _, r := range routes {
		for _, pr := range r.params(info, root) {
			count[pr.key()]++
			all[pr.key()] = pr
		}
	}
	for k, n := range count {
		if n != len(routes) {
			delete(all, k)
		}
	}
	return all
}

// key names a parameter by its name and where it is sent.
func (p param) key() string { return p.name + "\x00" + p.in }

// customPaths groups a resource's routes by their full path.
func customPaths(info ResourceInfo) (map[string][]route, map[string]string) {
	byPath := map[string][]route{}
	roots := map[string]string{}
	for _, r := range customRoutes(info) {
		root := "/apis/" + info.Group + "/" + info.Version + "/" + info.Resource
		if info.Namespaced && r.opName == "" {
			root = "/apis/" + info.Group + "/" + info.Version + "/namespaces/{namespace}/" + info.Resource
		}
		p := root + r.path
		byPath[p] = append(byPath[p], r)
		roots[p] = root
	}
	return byPath, roots
}

// customOpenAPIV3 is the document apiextensions builds for one CRD version (BuildOpenAPIV3).
func customOpenAPIV3(info ResourceInfo, defs map[string]*spec.Schema) (*spec3.OpenAPI, error) {
	doc := &spec3.OpenAPI{
		Version: "3.0.0",
		Info:    &spec.Info{InfoProps: spec.InfoProps{Title: "Kubernetes CRD Swagger", Version: "v0.1.0"}},
		Paths:   &spec3.Paths{Paths: map[string]*spec3.Path{}},
		Components: &spec3.Components{Schemas: map[string]*spec.Schema{
			modelName(info.Group, info.Version, info.Kind):     objectSchema(info, false),
			modelName(info.Group, info.Version, info.ListKind): listSchema(info, false),
		}},
	}
	refs := map[string]string{
		"object": modelName(info.Group, info.Version, info.Kind),
		"list":   modelName(info.Group, info.Version, info.ListKind),
		"status": statusName, "patch": patchName, "scale": scaleName, "delete": deleteOptsName,
	}
	byPath, roots := customPaths(info)
	for p, routes := range byPath {
		common := commonParams(info, routes, roots[p])
		item := &spec3.Path{}
		for _, pr := range common {
			item.Parameters = append(item.Parameters, pr.v3())
		}
		sortV3Params(item.Parameters)
		for _, r := range routes {
			op := &spec3.Operation{OperationProps: spec3.OperationProps{
				Description: r.description(info.Kind),
				Responses:   &spec3.Responses{ResponsesProps: spec3.ResponsesProps{StatusCodeResponses: map[int]*spec3.Response{}}},
			}}
			op.Extensions = spec.Extensions{}
			op.Extensions.Add("x-kubernetes-group-version-kind", metav1.GroupVersionKind{Group: info.Group, Version: info.Version, Kind: info.Kind})
			op.Extensions.Add("x-kubernetes-action", r.action)
			op.OperationId, op.Tags = operationIDAndTags(r.operationName(info), p)
			answer := refs[r.response]
			resp := func(desc string) *spec3.Response {
				return &spec3.Response{ResponseProps: spec3.ResponseProps{Description: desc, Content: map[string]*spec3.MediaType{
					"application/json": {MediaTypeProps: spec3.MediaTypeProps{Schema: spec.RefSchema(definitionRef(answer, false))}},
					"application/yaml": {MediaTypeProps: spec3.MediaTypeProps{Schema: spec.RefSchema(definitionRef(answer, false))}},
				}}}
			}
			addResponses(op.Responses.StatusCodeResponses, r.action, resp)
			op.Responses.StatusCodeResponses[http.StatusUnauthorized] = &spec3.Response{ResponseProps: spec3.ResponseProps{Description: "Unauthorized"}}
			for _, pr := range r.params(info, roots[p]) {
				if _, ok := common[pr.key()]; !ok {
					op.Parameters = append(op.Parameters, pr.v3())
				}
			}
			sortV3Params(op.Parameters)
			if r.body != "" {
				body := &spec3.RequestBody{RequestBodyProps: spec3.RequestBodyProps{Content: map[string]*spec3.MediaType{}, Required: r.body != "delete"}}
				for _, c := range r.consumes() {
					body.Content[c] = &spec3.MediaType{MediaTypeProps: spec3.MediaTypeProps{Schema: spec.RefSchema(definitionRef(refs[r.body], false))}}
				}
				op.RequestBody = body
			}
			setOperation(r.method, op, &item.Get, &item.Post, &item.Put, &item.Delete, &item.Patch)
		}
		doc.Paths.Paths[p] = item
	}
	paths, err := json.Marshal(doc.Paths)
	if err != nil {
		return nil, fmt.Errorf("kubeapi: openapi: %w", err)
	}
	if err := addReferenced(doc.Components.Schemas, defs, referencedNames(paths)); err != nil {
		return nil, err
	}
	return doc, nil
}

// addReferenced adds to schemas the definitions of defs that roots and the schemas refer to,
// transitively.
func addReferenced(schemas map[string]*spec.Schema, defs map[string]*spec.Schema, roots []string) error {
	for first := true; ; first = false {
		var missing []string
		if first {
			for _, name := range roots {
				if _, ok := schemas[name]; !ok {
					missing = append(missing, name)
				}
			}
		}
		for _, s := range schemas {
			b, err := json.Marshal(s)
			if err != nil {
				return err
			}
			for _, name := range referencedNames(b) {
				if _, ok := schemas[name]; !ok {
					missing = append(missing, name)
				}
			}
		}
		if len(missing) == 0 {
			return nil
		}
		for _, name := range missing {
			d := defs[name]
			if d == nil {
				return fmt.Errorf("kubeapi: openapi: no definition of %s", name)
			}
			schemas[name] = d
		}
	}
}

// referencedNames are the definition names a JSON document refers to ("$ref" values of either
// prefix).
func referencedNames(b []byte) []string {
	var out []string
	for {
		i := bytes.Index(b, []byte(`"$ref":"`))
		if i < 0 {
			return out
		}
		b = b[i+len(`"$ref":"`):]
		j := bytes.IndexByte(b, '"')
		if j < 0 {
			return out
		}
		ref := string(b[:j])
		ref = strings.TrimPrefix(ref, "#/components/schemas/")
		ref = strings.TrimPrefix(ref, "#/definitions/")
		out = append(out, ref)
		b = b[j:]
	}
}

var (
	builtinDefsOnce sync.Once
	builtinDefs     map[string]*spec.Schema
	builtinDefsErr  error
)

// builtinV3Definitions are the component schemas of the recorded documents that custom
// resources' documents refer to: meta/v1's (from apiextensions.k8s.io/v1's document) and
// autoscaling/v1's Scale (from apps/v1's, whose scale subresources answer it).
func builtinV3Definitions() (map[string]*spec.Schema, error) {
	builtinDefsOnce.Do(func() {
		builtinDefs = map[string]*spec.Schema{}
		for _, name := range []string{"v3_apis_apiextensions.k8s.io_v1", "v3_apis_apps_v1"} {
			b := recorded(name)
			if b == nil {
				builtinDefsErr = fmt.Errorf("kubeapi: openapi: %s is not recorded", name)
				return
			}
			var doc spec3.OpenAPI
			if err := json.Unmarshal(b, &doc); err != nil {
				builtinDefsErr = fmt.Errorf("kubeapi: openapi: %s: %w", name, err)
				return
			}
			for k, v := range doc.Components.Schemas {
				if _, dup := builtinDefs[k]; dup {
					continue
				}
				if strings.HasPrefix(k, "io.k8s.apimachinery.pkg.apis.meta.v1.") || strings.HasPrefix(k, "io.k8s.api.autoscaling.v1.") {
					builtinDefs[k] = v
				}
			}
		}
		if d := builtinDefs[deleteOptsName]; d != nil {
			c := *d
			c.Extensions = spec.Extensions{}
			for k, v := range d.Extensions {
				c.Extensions[k] = v
			}
			gvks := make([]any, len(deleteOptionsGroupVersions))
			for i, gv := range deleteOptionsGroupVersions {
				g, v, _ := strings.Cut(gv, "/")
				gvks[i] = map[string]any{"group": g, "version": v, "kind": "DeleteOptions"}
			}
			c.Extensions["x-kubernetes-group-version-kind"] = gvks
			builtinDefs[deleteOptsName] = &c
		}
	})
	return builtinDefs, builtinDefsErr
}

// mergeV3 merges the documents of a group/version's custom resources as apiextensions'
// MergeSpecsV3 does: the first's version and info, every path, every schema (a meta or
// autoscaling one once).
func mergeV3(docs []*spec3.OpenAPI) *spec3.OpenAPI {
	out := &spec3.OpenAPI{Version: docs[0].Version, Info: docs[0].Info,
		Paths: &spec3.Paths{Paths: map[string]*spec3.Path{}}, Components: &spec3.Components{Schemas: map[string]*spec.Schema{}}}
	for _, d := range docs {
		for k, v := range d.Components.Schemas {
			if _, ok := out.Components.Schemas[k]; !ok {
				out.Components.Schemas[k] = v
			}
		}
		for k, v := range d.Paths.Paths {
			out.Paths.Paths[k] = v
		}
	}
	return out
}

// customV3Document is the /openapi/v3 document of a group/version of custom resources.
func customV3Document(infos []ResourceInfo) ([]byte, error) {
	defs, err := builtinV3Definitions()
	if err != nil {
		return nil, err
	}
	docs := make([]*spec3.OpenAPI, 0, len(infos))
	for _, info := range infos {
		d, err := customOpenAPIV3(info, defs)
		if err != nil {
			return nil, err
		}
		docs = append(docs, d)
	}
	b, err := json.Marshal(mergeV3(docs))
	if err != nil {
		return nil, fmt.Errorf("kubeapi: openapi: %w", err)
	}
	return b, nil
}

// deleteOptionsGroupVersions are the group/versions of DeleteOptions' x-kubernetes-group-version-kind
// in the apiextensions apiserver's documents: every group/version client-go's scheme registers
// it in, which its definition namer reads (a built-in document lists those of its own group).
var deleteOptionsGroupVersions = []string{
	"/v1",
	"admissionregistration.k8s.io/v1",
	"admissionregistration.k8s.io/v1alpha1",
	"admissionregistration.k8s.io/v1beta1",
	"apps/v1",
	"apps/v1beta1",
	"apps/v1beta2",
	"authentication.k8s.io/v1",
	"authentication.k8s.io/v1alpha1",
	"authentication.k8s.io/v1beta1",
	"authorization.k8s.io/v1",
	"authorization.k8s.io/v1beta1",
	"autoscaling/v1",
	"autoscaling/v2",
	"batch/v1",
	"batch/v1beta1",
	"certificates.k8s.io/v1",
	"certificates.k8s.io/v1alpha1",
	"certificates.k8s.io/v1beta1",
	"coordination.k8s.io/v1",
	"coordination.k8s.io/v1alpha2",
	"coordination.k8s.io/v1beta1",
	"discovery.k8s.io/v1",
	"discovery.k8s.io/v1beta1",
	"events.k8s.io/v1",
	"events.k8s.io/v1beta1",
	"extensions/v1beta1",
	"flowcontrol.apiserver.k8s.io/v1",
	"flowcontrol.apiserver.k8s.io/v1beta1",
	"flowcontrol.apiserver.k8s.io/v1beta2",
	"flowcontrol.apiserver.k8s.io/v1beta3",
	"internal.apiserver.k8s.io/v1alpha1",
	"lifecycle.k8s.io/v1alpha1",
	"networking.k8s.io/v1",
	"networking.k8s.io/v1beta1",
	"node.k8s.io/v1",
	"node.k8s.io/v1alpha1",
	"node.k8s.io/v1beta1",
	"policy/v1",
	"policy/v1beta1",
	"rbac.authorization.k8s.io/v1",
	"rbac.authorization.k8s.io/v1alpha1",
	"rbac.authorization.k8s.io/v1beta1",
	"resource.k8s.io/v1",
	"resource.k8s.io/v1alpha3",
	"resource.k8s.io/v1beta1",
	"resource.k8s.io/v1beta2",
	"scheduling.k8s.io/v1",
	"scheduling.k8s.io/v1alpha3",
	"scheduling.k8s.io/v1beta1",
	"storage.k8s.io/v1",
	"storage.k8s.io/v1alpha1",
	"storage.k8s.io/v1beta1",
	"storagemigration.k8s.io/v1",
	"storagemigration.k8s.io/v1beta1",
}

// v2 is the parameter as kube-openapi's v2 builder makes it.
func (p param) v2() spec.Parameter {
	return spec.Parameter{
		ParamProps:   spec.ParamProps{Name: p.name, In: p.in, Description: p.desc, Required: p.required},
		SimpleSchema: spec.SimpleSchema{Type: p.dataType},
		CommonValidations: spec.CommonValidations{
			UniqueItems: true,
		},
	}
}

// customSwagger is the paths and definitions apiextensions' BuildOpenAPIV2 makes of one CRD
// version, its parameters already replaced by the shared ones of the built-in document (every
// parameter but name, dryRun, fieldValidation and a body of the kind's own schema is shared
// there, named by a hash of its JSON: kube-openapi's deduplicateParameters).
func customSwagger(info ResourceInfo) (map[string]spec.PathItem, map[string]spec.Schema, error) {
	refs := map[string]string{
		"object": modelName(info.Group, info.Version, info.Kind),
		"list":   modelName(info.Group, info.Version, info.ListKind),
		"status": statusName, "patch": patchName, "scale": scaleName, "delete": deleteOptsName,
	}
	share := func(p spec.Parameter) (spec.Parameter, error) {
		if p.Name == "name" || (p.In == "query" && (p.Name == "fieldValidation" || p.Name == "dryRun")) {
			return p, nil
		}
		if p.In == "body" && p.Schema != nil && !strings.HasPrefix(p.Schema.Ref.String(), "#/definitions/io.k8s.apimachinery") {
			return p, nil
		}
		b, err := json.Marshal(p)
		if err != nil {
			return p, err
		}
		return spec.Parameter{Refable: spec.Refable{Ref: spec.MustCreateRef("#/parameters/" + p.Name + "-" + paramHash(b))}}, nil
	}
	paths := map[string]spec.PathItem{}
	byPath, roots := customPaths(info)
	for p, routes := range byPath {
		shared := commonParams(info, routes, roots[p])
		var common []spec.Parameter
		for _, pr := range shared {
			common = append(common, pr.v2())
		}
		sortV2Params(common)
		item := spec.PathItem{}
		for _, c := range common {
			sp, err := share(c)
			if err != nil {
				return nil, nil, err
			}
			item.Parameters = append(item.Parameters, sp)
		}
		for _, r := range routes {
			op := &spec.Operation{OperationProps: spec.OperationProps{
				Description: r.description(info.Kind),
				Consumes:    r.consumes(),
				Produces:    []string{"application/json", "application/yaml"},
				Schemes:     []string{"https"},
				Responses:   &spec.Responses{ResponsesProps: spec.ResponsesProps{StatusCodeResponses: map[int]spec.Response{}}},
			}}
			op.Extensions = spec.Extensions{}
			// The merged v2 document has been through a decode, which made the extension a map:
			// its keys are in sorted order, unlike v3's struct.
			op.Extensions.Add("x-kubernetes-group-version-kind", map[string]any{"group": info.Group, "version": info.Version, "kind": info.Kind})
			op.Extensions.Add("x-kubernetes-action", r.action)
			op.ID, op.Tags = operationIDAndTags(r.operationName(info), p)
			answer := refs[r.response]
			resp := func(desc string) spec.Response {
				return spec.Response{ResponseProps: spec.ResponseProps{Description: desc, Schema: spec.RefSchema(definitionRef(answer, true))}}
			}
			addResponses(op.Responses.StatusCodeResponses, r.action, resp)
			op.Responses.StatusCodeResponses[http.StatusUnauthorized] = spec.Response{ResponseProps: spec.ResponseProps{Description: "Unauthorized"}}
			var ps []spec.Parameter
			for _, pr := range r.params(info, roots[p]) {
				if _, ok := shared[pr.key()]; !ok {
					ps = append(ps, pr.v2())
				}
			}
			if r.body != "" {
				ps = append(ps, spec.Parameter{
					ParamProps: spec.ParamProps{Name: "body", In: "body", Required: r.body != "delete", Schema: spec.RefSchema(definitionRef(refs[r.body], true))},
				})
			}
			sortV2Params(ps)
			for _, x := range ps {
				sp, err := share(x)
				if err != nil {
					return nil, nil, err
				}
				op.Parameters = append(op.Parameters, sp)
			}
			setOperation(r.method, op, &item.Get, &item.Post, &item.Put, &item.Delete, &item.Patch)
		}
		paths[p] = item
	}
	defs := map[string]spec.Schema{
		refs["object"]: *objectSchema(info, true),
		refs["list"]:   *listSchema(info, true),
	}
	return paths, defs, nil
}

func sortV2Params(ps []spec.Parameter) {
	sort.SliceStable(ps, func(i, j int) bool {
		return ps[i].Name < ps[j].Name || (ps[i].Name == ps[j].Name && ps[i].In < ps[j].In)
	})
}

// paramHash is kube-openapi's base64Hash: 6 bytes of the FNV-64 of a parameter's JSON, base64url.
func paramHash(b []byte) string {
	h := fnv.New64()
	h.Write(b)
	return base64.URLEncoding.EncodeToString(h.Sum(make([]byte, 0, 8))[:6])
}

// withCustomV2 adds the paths and definitions of custom resources to the /openapi/v2 document,
// each member in its sorted place, as the merged document has them (its maps are marshalled in
// key order); a path or definition the document already has keeps its own, as the static spec
// wins apiextensions' merge.
func withCustomV2(doc []byte, infos []ResourceInfo) ([]byte, error) {
	paths, defs := map[string][]byte{}, map[string][]byte{}
	for _, info := range infos {
		ps, ds, err := customSwagger(info)
		if err != nil {
			return nil, err
		}
		for k, v := range ps {
			b, err := json.Marshal(v)
			if err != nil {
				return nil, fmt.Errorf("kubeapi: openapi v2: %w", err)
			}
			paths[k] = b
		}
		for k, v := range ds {
			b, err := json.Marshal(v)
			if err != nil {
				return nil, fmt.Errorf("kubeapi: openapi v2: %w", err)
			}
			defs[k] = b
		}
	}
	doc = insertMembers(doc, "paths", paths)
	return insertMembers(doc, "definitions", defs), nil
}

// insertMembers returns doc with the members added to its top-level object named key, the
// object's members in key order; every other byte is kept.
func insertMembers(doc []byte, key string, add map[string][]byte) []byte {
	obj := gjson.GetBytes(doc, key)
	if !obj.IsObject() || obj.Index <= 0 || len(add) == 0 {
		return doc
	}
	type member struct {
		key string
		raw []byte
	}
	var ms []member
	obj.ForEach(func(k, v gjson.Result) bool {
		delete(add, k.Str)
		ms = append(ms, member{k.Str, []byte(k.Raw + ":" + v.Raw)})
		return true
	})
	for k, v := range add {
		ms = append(ms, member{k, append(append(jsonString(k), ':'), v...)})
	}
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].key < ms[j].key })
	out := make([]byte, 0, len(doc)+len(add)*4096)
	out = append(out, doc[:obj.Index]...)
	out = append(out, '{')
	for i, m := range ms {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, m.raw...)
	}
	out = append(out, '}')
	return append(out, doc[obj.Index+len(obj.Raw):]...)
}

// addResponses sets the answers of an operation the apiserver's builder documents with the
// object's schema: 200 for every action, 201 and 202 for a create, 202 for a delete, 201 for a
// replace. resp builds the v2 or v3 response of a description.
func addResponses[R any](codes map[int]R, action string, resp func(desc string) R) {
	codes[http.StatusOK] = resp("OK")
	switch action {
	case "post":
		codes[http.StatusAccepted] = resp("Accepted")
		codes[http.StatusCreated] = resp("Created")
	case "delete":
		codes[http.StatusAccepted] = resp("Accepted")
	case "put":
		codes[http.StatusCreated] = resp("Created")
	}
}

// setOperation puts op, a v2 or v3 operation, in its method's slot of a path item.
func setOperation[O any](method string, op *O, get, post, put, del, patch **O) {
	switch method {
	case "GET":
		*get = op
	case "POST":
		*post = op
	case "PUT":
		*put = op
	case "DELETE":
		*del = op
	case "PATCH":
		*patch = op
	}
}
