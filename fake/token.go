package fake

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// A service account's token subresource (POST serviceaccounts/{name}/token, what `kubectl create
// token` and the kubelet call): the apiserver's TokenRequest answers, recorded in
// reference/observed-computed.md (case token). The token is a JWT with the apiserver's claims,
// signed by a key of the process: nothing in the fake checks it, and it is not valid for any
// other server.

var (
	serviceAccountsGR = schema.GroupResource{Resource: "serviceaccounts"}
	tokenRequestType  = &resourceType{gvk: authenticationv1.SchemeGroupVersion.WithKind("TokenRequest"), goType: reflect.TypeOf(authenticationv1.TokenRequest{})}
)

// serviceAccountIssuer is the issuer and the default audience of the tokens, as a kube-apiserver
// started with --service-account-issuer=https://kubernetes.default.svc.cluster.local (the
// oracle's, and envtest's) has them.
const serviceAccountIssuer = "https://kubernetes.default.svc.cluster.local"

// Token lifetimes the apiserver accepts (its ValidateTokenRequest) and its default.
const (
	minTokenSeconds     = 10 * 60
	maxTokenSeconds     = 1 << 32
	defaultTokenSeconds = 3600
)

// serveToken answers a TokenRequest for the service account t names.
func (s *Server) serveToken(w http.ResponseWriter, r *http.Request, t target) {
	opts, body, ok := computedRequest(w, r, tokenRequestType)
	if !ok {
		return
	}
	out, err := s.tokenRequest(r.Context(), t, body, managerOf(opts, r))
	if err != nil {
		writeError(w, err)
		return
	}
	writeBody(w, http.StatusCreated, out)
}

// tokenRequest is the apiserver's TokenREST.Create: the request checked against the service
// account, defaulted and validated, and answered with a token.
func (s *Server) tokenRequest(ctx context.Context, t target, body []byte, manager string) ([]byte, error) {
	d, err := decodeBody(tokenRequestType, body)
	if err != nil {
		return nil, err
	}
	req := d.obj.(*authenticationv1.TokenRequest)
	gk := tokenRequestType.gvk.GroupKind()
	if req.Namespace != "" && req.Namespace != t.namespace {
		return nil, apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	if req.Name != "" && req.Name != t.name {
		return nil, apierrors.NewInvalid(gk, t.name, field.ErrorList{field.Invalid(field.NewPath("metadata", "name"), req.Name, "must match the service account name if specified")})
	}
	if req.Spec.ExpirationSeconds == nil {
		req.Spec.ExpirationSeconds = ptrTo[int64](defaultTokenSeconds) // the v1 type's default
	}
	if s.fields != nil && manager != "" {
		// The create handler's field manager sees the request as decoded and defaulted.
		if out, err := s.fields.UpdateObject(nil, req, tokenRequestType.gvk, "token", manager); err == nil {
			req = out.(*authenticationv1.TokenRequest)
		}
	}
	sa, err := s.getTyped(ctx, serviceAccountsGR, t.namespace, t.name)
	if err != nil {
		return nil, err
	}
	account := sa.(*corev1.ServiceAccount)
	if req.UID != "" && req.UID != account.UID {
		return nil, apierrors.NewConflict(schema.GroupResource{Group: gk.Group, Resource: gk.Kind}, t.name,
			fmt.Errorf("the UID in the token request (%s) does not match the UID of the service account (%s)", req.UID, account.UID))
	}
	if len(req.Spec.Audiences) == 0 {
		req.Spec.Audiences = []string{serviceAccountIssuer}
	}
	req.Name, req.Namespace, req.UID = account.Name, account.Namespace, account.UID
	now := s.opts.Now().Truncate(time.Second)
	req.CreationTimestamp = metav1.NewTime(now)
	req.Status = authenticationv1.TokenRequestStatus{}
	switch exp := *req.Spec.ExpirationSeconds; {
	case exp < minTokenSeconds:
		return nil, apierrors.NewInvalid(gk, "", field.ErrorList{field.Invalid(field.NewPath("spec", "expirationSeconds"), exp, "may not specify a duration less than 10 minutes")})
	case exp > maxTokenSeconds:
		return nil, apierrors.NewInvalid(gk, "", field.ErrorList{field.Invalid(field.NewPath("spec", "expirationSeconds"), exp, "may not specify a duration larger than 2^32 seconds")})
	}
	claims := map[string]any{"namespace": account.Namespace, "serviceaccount": map[string]any{"name": account.Name, "uid": account.UID}}
	if ref := req.Spec.BoundObjectRef; ref != nil {
		if err := s.bindToken(ctx, t, ref, claims); err != nil {
			return nil, err
		}
	}
	exp := now.Add(time.Duration(*req.Spec.ExpirationSeconds) * time.Second)
	token, err := signToken(map[string]any{
		"aud": req.Spec.Audiences, "exp": exp.Unix(), "iat": now.Unix(), "nbf": now.Unix(), "iss": serviceAccountIssuer,
		"jti": uuid.NewString(), "kubernetes.io": claims, "sub": "system:serviceaccount:" + account.Namespace + ":" + account.Name,
	})
	if err != nil {
		return nil, internalError("failed to generate token: %v", err)
	}
	req.Status = authenticationv1.TokenRequestStatus{Token: token, ExpirationTimestamp: metav1.NewTime(exp)}
	req.TypeMeta = metav1.TypeMeta{APIVersion: authenticationv1.SchemeGroupVersion.String(), Kind: "TokenRequest"}
	return json.Marshal(req)
}

// bindToken checks the object a token is bound to (a pod of the account, a node or a secret) and
// adds it to the token's claims.
func (s *Server) bindToken(ctx context.Context, t target, ref *authenticationv1.BoundObjectReference, claims map[string]any) error {
	gvk := schema.FromAPIVersionAndKind(ref.APIVersion, ref.Kind)
	var obj metav1Object
	switch {
	case gvk.Group == "" && gvk.Kind == "Pod":
		o, err := s.getTyped(ctx, podsGR, t.namespace, ref.Name)
		if err != nil {
			return err
		}
		pod := o.(*corev1.Pod)
		if pod.Spec.ServiceAccountName != t.name {
			return apierrors.NewBadRequest(fmt.Sprintf("cannot bind token for serviceaccount %q to pod running with different serviceaccount name.", t.name))
		}
		obj = pod
		claims["pod"] = map[string]any{"name": pod.Name, "uid": pod.UID}
	case gvk.Group == "" && gvk.Kind == "Node":
		o, err := s.getTyped(ctx, schema.GroupResource{Resource: "nodes"}, "", ref.Name)
		if err != nil {
			return err
		}
		obj = o.(*corev1.Node)
		claims["node"] = map[string]any{"name": obj.GetName(), "uid": obj.GetUID()}
	case gvk.Group == "" && gvk.Kind == "Secret":
		o, err := s.getTyped(ctx, schema.GroupResource{Resource: "secrets"}, t.namespace, ref.Name)
		if err != nil {
			return err
		}
		obj = o.(*corev1.Secret)
		claims["secret"] = map[string]any{"name": obj.GetName(), "uid": obj.GetUID()}
	default:
		return apierrors.NewBadRequest(fmt.Sprintf("cannot bind token to object of type %s", gvk.String()))
	}
	if ref.UID != "" && ref.UID != obj.GetUID() {
		return apierrors.NewConflict(schema.GroupResource{Group: gvk.Group, Resource: gvk.Kind}, ref.Name,
			fmt.Errorf("the UID in the bound object reference (%s) does not match the UID in record. The object might have been deleted and then recreated", ref.UID))
	}
	return nil
}

// getTyped reads one stored object of a built-in resource, decoded; a missing one is the
// apiserver's 404.
func (s *Server) getTyped(ctx context.Context, gr schema.GroupResource, namespace, name string) (metav1Object, error) {
	r := s.servedGR(gr)
	if r == nil {
		return nil, apierrors.NewNotFound(gr, name)
	}
	b, err := current(ctx, r, namespace, name)
	if err != nil {
		return nil, err
	}
	if b == nil {
		return nil, apierrors.NewNotFound(gr, name)
	}
	obj, err := decodeStored(r.resourceType, b)
	if err != nil {
		return nil, err
	}
	return obj.(metav1Object), nil
}

// ptrTo returns a pointer to v.
func ptrTo[T any](v T) *T { return &v }

// tokenKey is the process's signing key of service account tokens, made on first use.
var tokenKey = sync.OnceValues(func() (*ecdsa.PrivateKey, error) { return ecdsa.GenerateKey(elliptic.P256(), rand.Reader) })

// signToken returns a JWT of claims signed with ES256 by tokenKey, with a key id derived from the
// public key as the apiserver derives its own.
func signToken(claims map[string]any) (string, error) {
	key, err := tokenKey()
	if err != nil {
		return "", err
	}
	pub := elliptic.MarshalCompressed(key.Curve, key.X, key.Y)
	sum := sha256.Sum256(pub)
	enc := base64.RawURLEncoding
	header, _ := json.Marshal(map[string]string{"alg": "ES256", "kid": enc.EncodeToString(sum[:])})
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	signed := enc.EncodeToString(header) + "." + enc.EncodeToString(payload)
	digest := sha256.Sum256([]byte(signed))
	r, sg, err := ecdsa.Sign(rand.Reader, key, digest[:])
	if err != nil {
		return "", err
	}
	// The two halves big-endian, 32 bytes each (RFC 7518 §3.4).
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	sg.FillBytes(sig[32:])
	return signed + "." + enc.EncodeToString(sig), nil
}

// tokenUser is who a service account token is, and the audiences it was accepted for.
type tokenUser struct {
	user      User
	audiences []string
}

// tokenClaims are the claims of a token signToken made that reviewToken reads.
type tokenClaims struct {
	Audiences []string `json:"aud"`
	Expiry    int64    `json:"exp"`
	NotBefore int64    `json:"nbf"`
	Issuer    string   `json:"iss"`
	ID        string   `json:"jti"`
	Subject   string   `json:"sub"`
	Kube      struct {
		Namespace      string `json:"namespace"`
		ServiceAccount struct {
			Name string `json:"name"`
			UID  string `json:"uid"`
		} `json:"serviceaccount"`
		Pod *struct {
			Name string `json:"name"`
			UID  string `json:"uid"`
		} `json:"pod"`
	} `json:"kubernetes.io"`
}

// reviewToken authenticates a bearer token for one of audiences, as the apiserver's service
// account token authenticator does: a token this process signed, unexpired, for one of the
// audiences, of a service account (and a pod it is bound to) that still exists with the token's
// uid. Its error is the TokenReview's status.error: the bearer authenticator's "invalid bearer
// token", with the reason when there is one.
func (s *Server) reviewToken(ctx context.Context, token string, audiences []string) (tokenUser, error) {
	claims, ok := verifyToken(token)
	if !ok || claims.Issuer != serviceAccountIssuer {
		return tokenUser{}, errInvalidToken
	}
	invalid := func(err error) (tokenUser, error) {
		return tokenUser{}, fmt.Errorf("[%v, %v]", errInvalidToken, err)
	}
	var accepted []string
	for _, a := range audiences {
		if slices.Contains(claims.Audiences, a) {
			accepted = append(accepted, a)
		}
	}
	if len(accepted) == 0 {
		return invalid(fmt.Errorf("token audiences %q is invalid for the target audiences %q", claims.Audiences, audiences))
	}
	now := s.opts.Now().Unix()
	switch {
	case now > claims.Expiry:
		return invalid(errors.New("service account token has expired"))
	case now < claims.NotBefore:
		return invalid(errors.New("service account token is not valid yet"))
	}
	ns, name := claims.Kube.Namespace, claims.Kube.ServiceAccount.Name
	sa, err := s.getTyped(ctx, serviceAccountsGR, ns, name)
	if err != nil {
		return invalid(err)
	}
	if string(sa.GetUID()) != claims.Kube.ServiceAccount.UID {
		return invalid(fmt.Errorf("service account UID (%s) does not match claim (%s)", sa.GetUID(), claims.Kube.ServiceAccount.UID))
	}
	if sa.GetDeletionTimestamp() != nil {
		return invalid(fmt.Errorf("service account %s/%s has been deleted", ns, name))
	}
	u := User{Name: serviceAccountPrefix + ns + ":" + name, UID: claims.Kube.ServiceAccount.UID,
		Groups: append(serviceAccountGroups(ns), authenticatedGroup), Extra: map[string][]string{}}
	if pod := claims.Kube.Pod; pod != nil {
		p, err := s.getTyped(ctx, podsGR, ns, pod.Name)
		if err != nil || p.GetDeletionTimestamp() != nil {
			return invalid(errors.New("service account token has been invalidated"))
		}
		if string(p.GetUID()) != pod.UID {
			return invalid(fmt.Errorf("pod UID (%s) does not match service account pod ref claim (%s)", p.GetUID(), pod.UID))
		}
		u.Extra[podNameKey] = []string{pod.Name}
		u.Extra[podUIDKey] = []string{pod.UID}
	}
	if claims.ID != "" {
		u.Extra[credentialIDKey] = []string{"JTI=" + claims.ID}
	}
	return tokenUser{user: u, audiences: accepted}, nil
}

// verifiedTokens holds the claims of the tokens verifyToken accepted: a signature check is about
// a hundred microseconds of CPU, which every request with a service account's token would
// otherwise pay (BenchmarkServiceAccountGet). The claims are a function of the token alone — the
// key is the process's — and what depends on time or on stored objects (expiry, the service
// account, the pod) is checked on every request by reviewToken.
var verifiedTokens struct {
	sync.Mutex
	claims map[string]tokenClaims
}

// maxVerifiedTokens bounds verifiedTokens; past it, it starts over.
const maxVerifiedTokens = 1024

// verifyToken returns the claims of a token signToken made, or false. The claims are shared
// between callers, who must not modify them.
func verifyToken(token string) (tokenClaims, bool) {
	verifiedTokens.Lock()
	c, ok := verifiedTokens.claims[token]
	verifiedTokens.Unlock()
	if ok {
		return c, true
	}
	if c, ok = verifySignedToken(token); ok {
		verifiedTokens.Lock()
		if verifiedTokens.claims == nil || len(verifiedTokens.claims) >= maxVerifiedTokens {
			verifiedTokens.claims = map[string]tokenClaims{}
		}
		verifiedTokens.claims[token] = c
		verifiedTokens.Unlock()
	}
	return c, ok
}

// verifySignedToken checks a token's signature with the process's key and decodes its claims.
func verifySignedToken(token string) (tokenClaims, bool) {
	key, err := tokenKey()
	if err != nil {
		return tokenClaims{}, false
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return tokenClaims{}, false
	}
	enc := base64.RawURLEncoding
	sig, err := enc.DecodeString(parts[2])
	if err != nil || len(sig) != 64 {
		return tokenClaims{}, false
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if !ecdsa.Verify(&key.PublicKey, digest[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		return tokenClaims{}, false
	}
	payload, err := enc.DecodeString(parts[1])
	if err != nil {
		return tokenClaims{}, false
	}
	var c tokenClaims
	if json.Unmarshal(payload, &c) != nil {
		return tokenClaims{}, false
	}
	return c, true
}
