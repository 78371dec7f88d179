package gate

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"os"
	"time"

	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/authenticatorfactory"
	"k8s.io/apiserver/pkg/authentication/group"
	"k8s.io/apiserver/pkg/authentication/request/bearertoken"
	"k8s.io/apiserver/pkg/authentication/request/union"
	"k8s.io/apiserver/pkg/authentication/token/tokenfile"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"
	"k8s.io/apiserver/pkg/endpoints/filters"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// The caching and retry figures of the apiserver's delegated authentication and authorization
// (k8s.io/apiserver/pkg/server/options: DelegatingAuthenticationOptions, DelegatingAuthorizationOptions).
const (
	// TokenReviewTTL is how long a TokenReview answer is cached.
	TokenReviewTTL = 10 * time.Second
	// AllowTTL and DenyTTL are how long a SubjectAccessReview answer is cached: a grant for
	// minutes, a refusal briefly, so that a user just given a role soon gets in.
	AllowTTL = 5 * time.Minute
	DenyTTL  = 30 * time.Second
	// reviewTimeout bounds one review request to the cluster.
	reviewTimeout = 10 * time.Second
)

// reviewBackoff is the apiserver's DefaultAuthWebhookRetryBackoff: 5 tries over about 4 s.
var reviewBackoff = wait.Backoff{Duration: 500 * time.Millisecond, Factor: 1.5, Jitter: 0.2, Steps: 5}

// Config names the credentials a Gate accepts and the authorizer it asks. Every field is optional;
// a Config with no authenticator makes a Gate that lets every request through (Enabled is false).
type Config struct {
	// TokenAuthFile is a CSV file of static bearer tokens: token,user,uid[,"group1,group2"]
	// (the apiserver's --token-auth-file).
	TokenAuthFile string
	// ClientCAFile is a PEM bundle: a client certificate it signs authenticates as its common name,
	// with its organizations as groups (the apiserver's --client-ca-file).
	ClientCAFile string
	// AuthenticationKubeconfig is the cluster whose TokenReview authenticates bearer tokens
	// ("in-cluster": the pod's service account).
	AuthenticationKubeconfig string
	// AuthorizationKubeconfig is the cluster whose SubjectAccessReview authorizes requests
	// ("in-cluster": the pod's service account).
	AuthorizationKubeconfig string
	// AuthorizationPolicyFile is an ABAC policy file (one Policy object a line); exclusive with
	// AuthorizationKubeconfig.
	AuthorizationPolicyFile string
}

// Gate authenticates and authorizes requests. It is immutable after New and safe for concurrent
// use.
type Gate struct {
	authn     authenticator.Request
	authz     authorizer.UnconditionalAuthorizer
	clientCAs *x509.CertPool
}

// New builds the authenticators and the authorizer cfg names. It reads the files now: a missing or
// malformed file is an error here, not a 401 later.
func New(cfg Config) (*Gate, error) {
	g := &Gate{}
	var authns []authenticator.Request
	if cfg.TokenAuthFile != "" {
		tokens, err := tokenfile.NewCSV(cfg.TokenAuthFile)
		if err != nil {
			return nil, fmt.Errorf("--token-auth-file: %w", err)
		}
		authns = append(authns, bearertoken.New(tokens))
	}
	delegating := authenticatorfactory.DelegatingAuthenticatorConfig{CacheTTL: TokenReviewTTL, TokenAccessReviewTimeout: reviewTimeout, WebhookRetryBackoff: &reviewBackoff}
	useDelegating := false
	if cfg.ClientCAFile != "" {
		pem, err := os.ReadFile(cfg.ClientCAFile)
		if err != nil {
			return nil, fmt.Errorf("--client-ca-file: %w", err)
		}
		ca, err := dynamiccertificates.NewStaticCAContent("client-ca", pem)
		if err != nil {
			return nil, fmt.Errorf("--client-ca-file %s: %w", cfg.ClientCAFile, err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--client-ca-file %s: no certificate", cfg.ClientCAFile)
		}
		g.clientCAs = pool
		delegating.ClientCertificateCAContentProvider = ca
		useDelegating = true
	}
	if cfg.AuthenticationKubeconfig != "" {
		cs, err := clientset(cfg.AuthenticationKubeconfig)
		if err != nil {
			return nil, fmt.Errorf("--authentication-kubeconfig: %w", err)
		}
		delegating.TokenAccessReviewClient = cs.AuthenticationV1()
		useDelegating = true
	}
	if useDelegating {
		a, _, err := delegating.New()
		if err != nil {
			return nil, fmt.Errorf("authentication: %w", err)
		}
		authns = append(authns, a)
	}
	if len(authns) > 0 {
		g.authn = group.NewAuthenticatedGroupAdder(union.New(authns...))
	}

	if cfg.AuthorizationKubeconfig != "" && cfg.AuthorizationPolicyFile != "" {
		return nil, errors.New("--authorization-kubeconfig and --authorization-policy-file are two authorizers; give one")
	}
	var authz authorizer.UnconditionalAuthorizer
	switch {
	case cfg.AuthorizationKubeconfig != "":
		cs, err := clientset(cfg.AuthorizationKubeconfig)
		if err != nil {
			return nil, fmt.Errorf("--authorization-kubeconfig: %w", err)
		}
		a, err := authorizerfactory.DelegatingAuthorizerConfig{
			SubjectAccessReviewClient: cs.AuthorizationV1(),
			AllowCacheTTL:             AllowTTL,
			DenyCacheTTL:              DenyTTL,
			WebhookRetryBackoff:       &reviewBackoff,
		}.New()
		if err != nil {
			return nil, fmt.Errorf("authorization: %w", err)
		}
		authz = a
	case cfg.AuthorizationPolicyFile != "":
		p, err := LoadPolicy(cfg.AuthorizationPolicyFile)
		if err != nil {
			return nil, fmt.Errorf("--authorization-policy-file: %w", err)
		}
		authz = p
	}
	if authz != nil {
		if g.authn == nil {
			return nil, errors.New("an authorizer needs an authenticator: give --token-auth-file, --client-ca-file or --authentication-kubeconfig")
		}
		g.authz = mastersFirst{authz}
	}
	return g, nil
}

// clientset connects to the cluster of a kubeconfig file, or of the pod ("in-cluster").
func clientset(kubeconfig string) (*kubernetes.Clientset, error) {
	var cfg *rest.Config
	var err error
	if kubeconfig == "in-cluster" {
		cfg, err = rest.InClusterConfig()
	} else {
		cfg, err = clientcmd.BuildConfigFromFlags("", kubeconfig)
	}
	if err != nil {
		return nil, err
	}
	return kubernetes.NewForConfig(cfg)
}

// Enabled says whether the Gate checks credentials (some authenticator is configured).
func (g *Gate) Enabled() bool { return g.authn != nil }

// Authorizes says whether an authorizer is configured; without one, every authenticated user may
// do everything.
func (g *Gate) Authorizes() bool { return g.authz != nil }

// ClientCAs returns the pool client certificates are verified against, nil without
// --client-ca-file: the TLS server asks for client certificates only then.
func (g *Gate) ClientCAs() *x509.CertPool { return g.clientCAs }

// requestInfo resolves the API request a path names, as the apiserver's filters do.
var requestInfo = &request.RequestInfoFactory{
	APIPrefixes:          sets.NewString("api", "apis"),
	GrouplessAPIPrefixes: sets.NewString("api"),
}

// WithRequestInfo stores the apiserver's RequestInfo of each request in its context, which
// Handler (the authorizer's attributes) and callers' metrics read.
func WithRequestInfo(next http.Handler) http.Handler {
	return filters.WithRequestInfo(next, requestInfo)
}

// Handler returns next behind authentication and authorization. Requests must carry a RequestInfo
// (WithRequestInfo). A disabled Gate returns next.
func (g *Gate) Handler(next http.Handler) http.Handler {
	if g.authn == nil {
		return next
	}
	codecs := scheme.Codecs.WithoutConversion()
	h := next
	if g.authz != nil {
		h = filters.WithAuthorization(h, g.authz, codecs)
	}
	return filters.WithAuthentication(h, g.authn, filters.Unauthorized(codecs), nil, nil)
}

// User returns the user a request authenticated as, if any (set by Handler).
func User(ctx context.Context) (user.Info, bool) { return request.UserFrom(ctx) }

// mastersFirst allows members of system:masters without asking the authorizer, as the apiserver's
// privileged-group authorizer does before any other.
type mastersFirst struct {
	next authorizer.UnconditionalAuthorizer
}

func (m mastersFirst) Authorize(ctx context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	if u := a.GetUser(); u != nil {
		for _, g := range u.GetGroups() {
			if g == user.SystemPrivilegedGroup {
				return authorizer.DecisionAllow, "", nil
			}
		}
	}
	return m.next.Authorize(ctx, a)
}
