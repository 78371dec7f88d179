package fake

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"strings"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// CertificateSigningRequests as kube-apiserver 1.37.2's registry handles them
// (k8s.io/kubernetes pkg/registry/certificates/certificates and pkg/apis/certificates/validation),
// recorded in reference/observed-writes-more.md, case csr: the requester's identity in the spec,
// a spec no update changes, the approval subresource for Approved and Denied conditions and the
// status subresource for the certificate.

// certificateSigningRequestsGR is the resource of CertificateSigningRequests.
var certificateSigningRequestsGR = schema.GroupResource{Group: "certificates.k8s.io", Resource: "certificatesigningrequests"}

// isCSR reports whether t is the built-in CertificateSigningRequests.
func isCSR(t target) bool {
	return t.res.custom == nil && t.res.gvr.GroupResource() == certificateSigningRequestsGR
}

// withRequester returns r's context naming who r is (Admin when it names nobody the fake knows),
// for the strategies that record the requester: a CSR's spec names who asked for it.
func (s *Server) withRequester(r *http.Request, t target) context.Context {
	if _, ok := r.Context().Value(userKey{}).(User); ok {
		return r.Context()
	}
	a := resourceAttributes{Verb: "create", Group: t.res.gvr.Group, Resource: t.res.gvr.Resource}.attributes()
	u, err := s.requestUser(r, a)
	if err != nil {
		u = Admin // the fake serves an unknown token as its admin unless it enforces RBAC
	}
	return WithUser(r.Context(), u)
}

// prepareCSRCreate is the CSR strategy's PrepareForCreate: the spec's username, uid, groups and
// extra are the requester's, whatever the request says, and the status starts empty.
func prepareCSRCreate(ctx context.Context, csr *certificatesv1.CertificateSigningRequest) {
	u, ok := ctx.Value(userKey{}).(User)
	if !ok {
		u = Admin
	}
	csr.Spec.Username, csr.Spec.UID = u.Name, u.UID
	csr.Spec.Groups = append([]string(nil), u.Groups...)
	csr.Spec.Extra = nil
	if len(u.Extra) > 0 {
		csr.Spec.Extra = map[string]certificatesv1.ExtraValue{}
		for k, v := range u.Extra {
			csr.Spec.Extra[k] = append(certificatesv1.ExtraValue(nil), v...)
		}
	}
	csr.Status = certificatesv1.CertificateSigningRequestStatus{}
}

// prepareCSRUpdate is the PrepareForUpdate of the CSR's strategies: no update changes the spec;
// the main resource keeps the stored status; the status subresource keeps the stored Approved and
// Denied conditions (when it has as many of each); the approval subresource changes only the
// conditions. Conditions without times get now (the last transition's when the stored condition of
// that type has the same status).
func prepareCSRUpdate(csr, old *certificatesv1.CertificateSigningRequest, subresource string, now metav1.Time) {
	csr.Spec = old.Spec
	switch subresource {
	case "":
		csr.Status = old.Status
		return
	case "status":
		for _, typ := range []certificatesv1.RequestConditionType{certificatesv1.CertificateApproved, certificatesv1.CertificateDenied} {
			oldAt, newAt := conditionIndices(old, typ), conditionIndices(csr, typ)
			if len(oldAt) == len(newAt) {
				for i, at := range oldAt {
					csr.Status.Conditions[newAt[i]] = old.Status.Conditions[at]
				}
			}
		}
		populateConditionTimes(csr, old, now)
	case "approval":
		populateConditionTimes(csr, old, now)
		conditions := csr.Status.Conditions
		csr.Status = old.Status
		csr.Status.Conditions = conditions
	}
}

// conditionIndices are the indices of a CSR's conditions of a type.
func conditionIndices(csr *certificatesv1.CertificateSigningRequest, typ certificatesv1.RequestConditionType) []int {
	var at []int
	for i, c := range csr.Status.Conditions {
		if c.Type == typ {
			at = append(at, i)
		}
	}
	return at
}

// populateConditionTimes sets the conditions' missing update and transition times.
func populateConditionTimes(csr, old *certificatesv1.CertificateSigningRequest, now metav1.Time) {
	for i := range csr.Status.Conditions {
		c := &csr.Status.Conditions[i]
		if c.LastUpdateTime.IsZero() {
			c.LastUpdateTime = now
		}
		if c.LastTransitionTime.IsZero() {
			c.LastTransitionTime = now
			for _, oc := range old.Status.Conditions {
				if oc.Type == c.Type && oc.Status == c.Status && !oc.LastTransitionTime.IsZero() {
					c.LastTransitionTime = oc.LastTransitionTime
					break
				}
			}
		}
	}
}

// csrUsages are the key usages a CSR may ask for.
var csrUsages = []string{"any", "cert sign", "client auth", "code signing", "content commitment", "crl sign",
	"data encipherment", "decipher only", "digital signature", "email protection", "encipher only", "ipsec end system",
	"ipsec tunnel", "ipsec user", "key agreement", "key encipherment", "microsoft sgc", "netscape sgc", "ocsp signing",
	"s/mime", "server auth", "signing", "timestamping"}

// validateCSR is the apiserver's CSR validation without ObjectMeta: on create (old nil), and on an
// update of the main resource, its status or its approval, which alone may add or change the
// Approved and Denied conditions, as only the status may set the certificate. What the stored
// CSR already breaks (unknown or duplicate usages, duplicate or empty condition types, both
// Approved and Denied, a certificate that does not parse) is tolerated, as the apiserver does.
func validateCSR(csr, old *certificatesv1.CertificateSigningRequest, subresource string) field.ErrorList {
	spec := field.NewPath("spec")
	var errs field.ErrorList
	if err := checkCSRRequest(csr.Spec.Request); err != nil {
		errs = append(errs, field.Invalid(spec.Child("request"), csr.Spec.Request, err.Error()))
	}
	if len(csr.Spec.Usages) == 0 {
		errs = append(errs, field.Required(spec.Child("usages"), ""))
	}
	if old == nil || !hasUnknownUsage(old.Spec.Usages) {
		for i, u := range csr.Spec.Usages {
			if !contains(csrUsages, string(u)) {
				errs = append(errs, field.NotSupported(spec.Child("usages").Index(i), u, csrUsages))
			}
		}
	}
	if old == nil || !hasDuplicate(old.Spec.Usages) {
		seen := map[certificatesv1.KeyUsage]bool{}
		for i, u := range csr.Spec.Usages {
			if seen[u] {
				errs = append(errs, field.Duplicate(spec.Child("usages").Index(i), u))
			}
			seen[u] = true
		}
	}
	if csr.Spec.SignerName == "kubernetes.io/legacy-unknown" && (old == nil || old.Spec.SignerName != csr.Spec.SignerName) {
		errs = append(errs, field.Invalid(spec.Child("signerName"), csr.Spec.SignerName, "the legacy signerName is not allowed via this API version"))
	} else {
		errs = append(errs, validateSignerName(spec.Child("signerName"), csr.Spec.SignerName)...)
	}
	if e := csr.Spec.ExpirationSeconds; e != nil && *e < 600 {
		errs = append(errs, field.Invalid(spec.Child("expirationSeconds"), *e, "may not specify a duration less than 600 seconds (10 minutes)"))
	}
	conds := field.NewPath("status", "conditions")
	errs = append(errs, validateCSRConditions(conds, csr, old)...)
	arbitrary := old != nil && (bytes.Equal(csr.Status.Certificate, old.Status.Certificate) || checkCertificate(old.Status.Certificate) != nil)
	if err := checkCertificate(csr.Status.Certificate); err != nil && !arbitrary {
		errs = append(errs, field.Invalid(field.NewPath("status", "certificate"), "<certificate data>", err.Error()))
	}
	if old == nil {
		return append(errs, csrApprovedAndDenied(conds, csr, old)...)
	}
	for _, typ := range []certificatesv1.RequestConditionType{certificatesv1.CertificateApproved, certificatesv1.CertificateDenied, certificatesv1.CertificateFailed} {
		if len(conditionIndices(csr, typ)) < len(conditionIndices(old, typ)) {
			errs = append(errs, field.Forbidden(conds, fmt.Sprintf("updates may not remove a condition of type %q", typ)))
		}
	}
	if subresource != "approval" {
		for _, typ := range []certificatesv1.RequestConditionType{certificatesv1.CertificateApproved, certificatesv1.CertificateDenied} {
			n, o := conditionsOf(csr, typ), conditionsOf(old, typ)
			switch {
			case len(n) < len(o):
			case len(n) > len(o):
				errs = append(errs, field.Forbidden(conds, fmt.Sprintf("updates may not add a condition of type %q", typ)))
			case !equality.Semantic.DeepEqual(o, n):
				errs = append(errs, field.Forbidden(conds, fmt.Sprintf("updates may not modify a condition of type %q", typ)))
			}
		}
	}
	if !bytes.Equal(csr.Status.Certificate, old.Status.Certificate) {
		if subresource != "status" {
			errs = append(errs, field.Forbidden(field.NewPath("status", "certificate"), "updates may not set certificate content"))
		} else if len(old.Status.Certificate) > 0 {
			errs = append(errs, field.Forbidden(field.NewPath("status", "certificate"), "updates may not modify existing certificate content"))
		}
	}
	return append(errs, csrApprovedAndDenied(conds, csr, old)...)
}

// csrApprovedAndDenied is the declarative validation's refusal of both an Approved and a Denied
// condition (unless the stored CSR has both), which comes after the handwritten causes.
func csrApprovedAndDenied(conds *field.Path, csr, old *certificatesv1.CertificateSigningRequest) field.ErrorList {
	both := func(c *certificatesv1.CertificateSigningRequest) bool {
		return len(conditionIndices(c, certificatesv1.CertificateApproved)) > 0 && len(conditionIndices(c, certificatesv1.CertificateDenied)) > 0
	}
	if !both(csr) || (old != nil && both(old)) {
		return nil
	}
	return field.ErrorList{field.Invalid(conds, `{conditions[{"type": "Approved"}], conditions[{"type": "Denied"}]}`,
		"must specify at most one of: `conditions[{\"type\": \"Approved\"}]`, `conditions[{\"type\": \"Denied\"}]`")}
}

// validateCSRConditions checks each condition's type (present, once) and status (True for
// Approved, Denied and Failed; else True, False or Unknown).
func validateCSRConditions(path *field.Path, csr, old *certificatesv1.CertificateSigningRequest) field.ErrorList {
	var errs field.ErrorList
	allowEmpty, allowDuplicate := false, false
	if old != nil {
		seen := map[certificatesv1.RequestConditionType]bool{}
		for _, c := range old.Status.Conditions {
			allowEmpty = allowEmpty || c.Type == ""
			allowDuplicate = allowDuplicate || seen[c.Type]
			seen[c.Type] = true
		}
	}
	seen := map[certificatesv1.RequestConditionType]bool{}
	for i, c := range csr.Status.Conditions {
		p := path.Index(i)
		if c.Type == "" && !allowEmpty {
			errs = append(errs, field.Required(p.Child("type"), ""))
		}
		allowed := []string{string(corev1.ConditionFalse), string(corev1.ConditionTrue), string(corev1.ConditionUnknown)}
		switch c.Type {
		case certificatesv1.CertificateApproved, certificatesv1.CertificateDenied, certificatesv1.CertificateFailed:
			allowed = []string{string(corev1.ConditionTrue)}
		}
		switch {
		case c.Status == "":
			errs = append(errs, field.Required(p.Child("status"), ""))
		case !contains(allowed, string(c.Status)):
			errs = append(errs, field.NotSupported(p.Child("status"), c.Status, allowed))
		}
		if seen[c.Type] && !allowDuplicate {
			errs = append(errs, field.Duplicate(p.Child("type"), c.Type))
		}
		seen[c.Type] = true
	}
	return errs
}

// conditionsOf are a CSR's conditions of a type.
func conditionsOf(csr *certificatesv1.CertificateSigningRequest, typ certificatesv1.RequestConditionType) []certificatesv1.CertificateSigningRequestCondition {
	var out []certificatesv1.CertificateSigningRequestCondition
	for _, c := range csr.Status.Conditions {
		if c.Type == typ {
			out = append(out, c)
		}
	}
	return out
}

// hasUnknownUsage reports whether a CSR asks for a usage the apiserver does not know.
func hasUnknownUsage(usages []certificatesv1.KeyUsage) bool {
	for _, u := range usages {
		if !contains(csrUsages, string(u)) {
			return true
		}
	}
	return false
}

// hasDuplicate reports whether a CSR asks for a usage twice.
func hasDuplicate(usages []certificatesv1.KeyUsage) bool {
	seen := map[certificatesv1.KeyUsage]bool{}
	for _, u := range usages {
		if seen[u] {
			return true
		}
		seen[u] = true
	}
	return false
}

// checkCSRRequest parses a PEM-encoded PKCS#10 request and checks its signature.
func checkCSRRequest(b []byte) error {
	block, _ := pem.Decode(b)
	if block == nil || block.Type != "CERTIFICATE REQUEST" {
		return errors.New("PEM block type must be CERTIFICATE REQUEST")
	}
	req, err := x509.ParseCertificateRequest(block.Bytes)
	if err != nil {
		return err
	}
	return req.CheckSignature()
}

// checkCertificate checks an issued certificate chain: CERTIFICATE PEM blocks only, without
// headers, each parsing; none at all is fine (nothing issued yet).
func checkCertificate(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	blocks := 0
	for {
		block, rest := pem.Decode(b)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			return fmt.Errorf("only CERTIFICATE PEM blocks are allowed, found %q", block.Type)
		}
		if len(block.Headers) != 0 {
			return errors.New("no PEM block headers are permitted")
		}
		blocks++
		certs, err := x509.ParseCertificates(block.Bytes)
		if err != nil {
			return err
		}
		if len(certs) == 0 {
			return errors.New("found CERTIFICATE PEM block containing 0 certificates")
		}
		b = rest
	}
	if blocks == 0 {
		return errors.New("must contain at least one CERTIFICATE PEM block")
	}
	return nil
}

// validateSignerName is the apiserver's ValidateSignerName: a domain of at least two DNS labels,
// a slash, and a path of DNS subdomains.
func validateSignerName(p *field.Path, name string) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	segments := strings.Split(name, "/")
	if len(segments) != 2 {
		return field.ErrorList{field.Invalid(p, name, "must be a fully qualified domain and path of the form 'example.com/signer-name'")}
	}
	var errs field.ErrorList
	const maxDomain = validation.DNS1123SubdomainMaxLength
	if len(segments[0]) > maxDomain {
		errs = append(errs, field.TooLong(p, "", maxDomain))
	}
	labels := strings.Split(segments[0], ".")
	for _, l := range labels {
		if msgs := validation.IsDNS1123Label(l); len(msgs) > 0 {
			for _, m := range msgs {
				errs = append(errs, field.Invalid(p, segments[0], fmt.Sprintf("validating label %q: %s", l, m)))
			}
			break
		}
	}
	if len(labels) < 2 {
		errs = append(errs, field.Invalid(p, segments[0], "should be a domain with at least two segments separated by dots"))
	}
	for _, l := range strings.Split(segments[1], ".") {
		if msgs := validation.IsDNS1123Subdomain(l); len(msgs) > 0 {
			for _, m := range msgs {
				errs = append(errs, field.Invalid(p, segments[1], fmt.Sprintf("validating label %q: %s", l, m)))
			}
			break
		}
	}
	if maxName := maxDomain + validation.DNS1123SubdomainMaxLength + validation.DNS1123LabelMaxLength + 2; len(name) > maxName {
		errs = append(errs, field.TooLong(p, "", maxName))
	}
	return errs
}

// trustBundleName is the name rule of a ClusterTrustBundle: a DNS subdomain without ":" when it
// has no signer, else the signer name with "/" as ":" and a ":" before a DNS subdomain.
func trustBundleName(signerName string) func(name string, prefix bool) []string {
	return func(name string, prefix bool) []string {
		if signerName == "" {
			if strings.Contains(name, ":") {
				return []string{`ClusterTrustBundle without signer name must not have ":" in its name`}
			}
			return apimachineryvalidation.NameIsDNSSubdomain(name, prefix)
		}
		want := strings.ReplaceAll(signerName, "/", ":") + ":"
		if !strings.HasPrefix(name, want) {
			return []string{fmt.Sprintf("ClusterTrustBundle for signerName %s must be named with prefix %s", signerName, want)}
		}
		return apimachineryvalidation.NameIsDNSSubdomain(strings.TrimPrefix(name, want), prefix)
	}
}

// maxTrustBundle is the largest trust bundle the apiserver stores.
const maxTrustBundle = 1 << 20

// validateClusterTrustBundle is the apiserver's ValidateClusterTrustBundle without ObjectMeta
// (old nil) and ValidateClusterTrustBundleUpdate: a signer name, and CA certificates in the
// bundle (not parsed again by an update that leaves it), a signer name no update changes; an
// update checks the name against the signer too.
func validateClusterTrustBundle(b, old *certificatesv1.ClusterTrustBundle) field.ErrorList {
	var errs field.ErrorList
	if old != nil {
		// An update validates the whole object again: its name against the new signer.
		for _, msg := range trustBundleName(b.Spec.SignerName)(b.Name, false) {
			errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), b.Name, msg))
		}
	}
	if b.Spec.SignerName != "" {
		errs = append(errs, validateSignerName(field.NewPath("spec", "signerName"), b.Spec.SignerName)...)
	}
	if old == nil || b.Spec.TrustBundle != old.Spec.TrustBundle {
		errs = append(errs, validateTrustBundle(field.NewPath("spec", "trustBundle"), b.Spec.TrustBundle)...)
	}
	if old != nil && b.Spec.SignerName != old.Spec.SignerName {
		errs = append(errs, field.Invalid(field.NewPath("spec", "signerName"), b.Spec.SignerName, "field is immutable"))
	}
	return errs
}

// validateTrustBundle checks a bundle of PEM CERTIFICATE blocks, each a CA certificate without
// headers, at least one, none twice.
func validateTrustBundle(p *field.Path, in string) field.ErrorList {
	if len(in) > maxTrustBundle {
		return field.ErrorList{field.TooLong(p, "", maxTrustBundle)}
	}
	var errs field.ErrorList
	seen := map[string][]int{}
	var order []string
	rest := []byte(in)
	for i := 0; ; i++ {
		var block *pem.Block
		if block, rest = pem.Decode(rest); block == nil {
			break
		}
		bad := func(msg string) {
			errs = append(errs, field.Invalid(p, "<value omitted>", fmt.Sprintf("entry %d %s", i, msg)))
		}
		if block.Type != "CERTIFICATE" {
			bad("has bad block type: " + block.Type)
			continue
		}
		if len(block.Headers) != 0 {
			bad("has PEM block headers")
			continue
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		switch {
		case err != nil:
			bad("does not parse as X.509")
			continue
		case !cert.IsCA:
			bad("does not have the CA bit set")
			continue
		case !cert.BasicConstraintsValid:
			bad("has invalid basic constraints")
			continue
		}
		if _, ok := seen[string(block.Bytes)]; !ok {
			order = append(order, string(block.Bytes))
		}
		seen[string(block.Bytes)] = append(seen[string(block.Bytes)], i)
	}
	if len(errs) > 0 {
		return errs
	}
	if len(seen) == 0 {
		return field.ErrorList{field.Invalid(p, "<value omitted>", "at least one trust anchor must be provided")}
	}
	for _, k := range order {
		if at := seen[k]; len(at) > 1 {
			errs = append(errs, field.Invalid(p, "<value omitted>", fmt.Sprintf("duplicate trust anchor (indices %v)", at)))
		}
	}
	return errs
}
