package fake

import (
	"errors"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/rest"
)

// Environment is a Server in the shape of controller-runtime's envtest.Environment, so that a
// suite written for envtest switches by changing its constructor:
//
//	testEnv := &envtest.Environment{CRDDirectoryPaths: []string{"../config/crd/bases"}, ErrorIfCRDPathMissing: true}
//	testEnv := &fake.Environment{CRDDirectoryPaths: []string{"../config/crd/bases"}, ErrorIfCRDPathMissing: true}
//
// and keeps calling cfg, err := testEnv.Start() and testEnv.Stop(). Start is in-process and takes
// milliseconds: no etcd or kube-apiserver binaries (KUBEBUILDER_ASSETS is not read).
//
// Concurrency: Start and Stop must not be called concurrently; the Server may be used by any
// number of clients.
type Environment struct {
	// CRDDirectoryPaths are files or directories of CustomResourceDefinitions to create at start
	// (YAML or JSON; a directory's .yaml, .yml and .json files, not recursively).
	CRDDirectoryPaths []string
	// CRDs are CustomResourceDefinitions to create at start, before those of CRDDirectoryPaths.
	CRDs []*apiextensionsv1.CustomResourceDefinition
	// ErrorIfCRDPathMissing makes Start fail when a path of CRDDirectoryPaths does not exist.
	ErrorIfCRDPathMissing bool
	// WebhookInstallOptions installs admission webhook configurations pointed at a local webhook
	// server, as envtest's do.
	WebhookInstallOptions WebhookInstallOptions
	// Options are the Server's other options; their CRD fields are replaced by the ones above.
	Options Options

	// Config is the rest.Config of the running server (Server.Config: it reaches the server in
	// process), set by Start as envtest sets its own.
	Config *rest.Config
	// Server is the running server, set by Start: for what envtest does not have (the fake's
	// Cache, ResourceVersion).
	Server *Server
}

// Start starts the server with the CRDs created and Established, and returns its rest.Config.
func (e *Environment) Start() (*rest.Config, error) {
	if e.Server != nil {
		return nil, errors.New("fake: Environment already started")
	}
	opts := e.Options
	opts.CRDs = e.CRDs
	opts.CRDDirectoryPaths = e.CRDDirectoryPaths
	opts.ErrorIfCRDPathMissing = e.ErrorIfCRDPathMissing
	s, err := NewServer(opts)
	if err != nil {
		return nil, err
	}
	if err := e.WebhookInstallOptions.install(s); err != nil {
		s.Close()
		_ = e.WebhookInstallOptions.cleanup()
		return nil, err
	}
	// A watch here is a controller's informer starting, and a controller writes: its first write
	// of a built-in kind (an owned Deployment, say) needs the patch engine's type converter, which
	// the server builds from the first watch on, while the controller's caches sync.
	s.prepareOnWatch.Store(true)
	e.Server, e.Config = s, s.Config()
	return e.Config, nil
}

// Stop stops the server; running watches end. It returns when nothing the environment started
// runs, the type converter it builds after the first watch included. Stopping an environment that
// is not running does nothing.
func (e *Environment) Stop() error {
	if e.Server != nil {
		e.Server.Close()
		e.Server.fields.WaitPrepared()
		e.Server = nil
	}
	return e.WebhookInstallOptions.cleanup()
}
