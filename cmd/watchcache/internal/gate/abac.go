package gate

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// abacAPIVersion is the only policy version read: the unversioned v0 lines of the oldest clusters
// are refused with an error naming this one.
const abacAPIVersion = "abac.authorization.kubernetes.io/v1beta1"

// Policy is an ABAC policy: a list of rules, any of which allows a request. Its semantics are the
// apiserver's --authorization-mode=ABAC (pkg/auth/authorizer/abac): a rule matches when its subject
// (user and/or group, "*" for any) matches, the request is read-only or the rule is not readonly,
// and either its namespace, resource and apiGroup (each "*" or exact) match a resource request or
// its nonResourcePath ("*", exact, or a prefix ending in "*") matches a non-resource one. A request
// no rule matches gets no opinion, which the Gate answers with 403. Immutable; safe for concurrent
// use.
type Policy []PolicySpec

// PolicySpec is one rule, the spec of a Policy line of the file.
type PolicySpec struct {
	User            string `json:"user,omitempty"`
	Group           string `json:"group,omitempty"`
	Readonly        bool   `json:"readonly,omitempty"`
	APIGroup        string `json:"apiGroup,omitempty"`
	Resource        string `json:"resource,omitempty"`
	Namespace       string `json:"namespace,omitempty"`
	NonResourcePath string `json:"nonResourcePath,omitempty"`
}

// LoadPolicy reads a policy file: one JSON Policy object a line; blank lines and lines starting
// with # are skipped.
func LoadPolicy(file string) (Policy, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return ParsePolicy(data)
}

// ParsePolicy parses the content of a policy file (see LoadPolicy).
func ParsePolicy(data []byte) (Policy, error) {
	var p Policy
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var obj struct {
			APIVersion string      `json:"apiVersion"`
			Kind       string      `json:"kind"`
			Spec       *PolicySpec `json:"spec"`
		}
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&obj); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if obj.APIVersion != abacAPIVersion || obj.Kind != "Policy" || obj.Spec == nil {
			return nil, fmt.Errorf("line %d: want a Policy of %s with a spec", n, abacAPIVersion)
		}
		if obj.Spec.User == "" && obj.Spec.Group == "" {
			return nil, fmt.Errorf("line %d: a rule needs a user or a group", n)
		}
		p = append(p, *obj.Spec)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(p) == 0 {
		return nil, fmt.Errorf("no rule")
	}
	return p, nil
}

// Authorize allows a request a rule matches; otherwise it has no opinion, with no reason: the 403
// then reads as a cluster's RBAC denial (reference/observed-authn.md), not as the apiserver's ABAC
// mode's, which appends ": No policy matched.".
func (p Policy) Authorize(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	for _, r := range p {
		if r.matches(a) {
			return authorizer.DecisionAllow, "", nil
		}
	}
	return authorizer.DecisionNoOpinion, "", nil
}

func (r PolicySpec) matches(a authorizer.Attributes) bool {
	if !r.subjectMatches(a.GetUser()) {
		return false
	}
	if r.Readonly && !a.IsReadOnly() {
		return false
	}
	if a.IsResourceRequest() {
		return wild(r.Namespace, a.GetNamespace()) && wild(r.Resource, a.GetResource()) && wild(r.APIGroup, a.GetAPIGroup())
	}
	path := a.GetPath()
	switch {
	case r.NonResourcePath == "*", r.NonResourcePath == path:
		return true
	case strings.HasSuffix(r.NonResourcePath, "*"):
		return strings.HasPrefix(path, strings.TrimRight(r.NonResourcePath, "*"))
	}
	return false
}

// subjectMatches requires every subject field the rule sets to match.
func (r PolicySpec) subjectMatches(u user.Info) bool {
	if u == nil {
		return false
	}
	if r.User != "" && r.User != "*" && r.User != u.GetName() {
		return false
	}
	if r.Group != "" && r.Group != "*" {
		found := false
		for _, g := range u.GetGroups() {
			if g == r.Group {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// wild matches a rule's field: "*" matches anything, otherwise the value exactly ("" matches only
// "", e.g. the core group or a cluster-scoped request).
func wild(rule, value string) bool { return rule == "*" || rule == value }
