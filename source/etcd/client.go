package etcd

import (
	"crypto/tls"
	"fmt"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
)

// maxReconnectDelay caps gRPC's delay between attempts to reach an etcd that went away. gRPC's
// default grows to 120 s, so after an outage of a few minutes the client went on waiting for up to
// half a minute after etcd was back (seen against the oracle: 35 s); 5 s bounds that, for one
// connection attempt per endpoint every 5 s while etcd is down.
const maxReconnectDelay = 5 * time.Second

// DefaultDialTimeout bounds the first connection of a client made by NewClient: the apiserver's
// etcd client dials with a 20 s timeout too (storagebackend/factory: dialTimeout).
const DefaultDialTimeout = 20 * time.Second

// ClientConfig says how to reach an apiserver's etcd, with the apiserver's own options: its
// --etcd-servers, --etcd-cafile, --etcd-certfile and --etcd-keyfile. It is a plain value.
type ClientConfig struct {
	// Endpoints are etcd's client URLs ("https://10.0.0.1:2379"); at least one.
	Endpoints []string
	// CAFile is a PEM bundle of the CAs that sign etcd's serving certificate; "" means the system's
	// roots when TLS is on.
	CAFile string
	// CertFile and KeyFile are the client certificate and key (PEM) etcd checks when it runs with
	// --client-cert-auth; both or neither.
	CertFile, KeyFile string
	// DialTimeout bounds the first connection; 0 means DefaultDialTimeout.
	DialTimeout time.Duration
	// Logger receives the etcd client's own logs; nil discards them (the source logs what matters).
	Logger *zap.Logger
}

// TLS returns the client's TLS configuration, or nil when none of CAFile, CertFile and KeyFile is
// set (plain connections, as the apiserver's client then makes). The files are read now, so that a
// missing or malformed one fails here rather than at the first request.
func (c ClientConfig) TLS() (*tls.Config, error) {
	if c.CAFile == "" && c.CertFile == "" && c.KeyFile == "" {
		return nil, nil
	}
	if (c.CertFile == "") != (c.KeyFile == "") {
		return nil, fmt.Errorf("%w: a client certificate needs both a certificate file and a key file (got cert %q, key %q)", ErrClientConfig, c.CertFile, c.KeyFile)
	}
	info := transport.TLSInfo{CertFile: c.CertFile, KeyFile: c.KeyFile, TrustedCAFile: c.CAFile}
	cfg, err := info.ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("%w: TLS: %w", ErrClientConfig, err)
	}
	return cfg, nil
}

// NewClient returns an etcd client for c. Like clientv3.New it does not wait for a connection:
// the first request dials. The client is the caller's to close.
func NewClient(c ClientConfig) (*clientv3.Client, error) {
	if len(c.Endpoints) == 0 {
		return nil, fmt.Errorf("%w: no endpoint", ErrClientConfig)
	}
	tlsCfg, err := c.TLS()
	if err != nil {
		return nil, err
	}
	if c.DialTimeout <= 0 {
		c.DialTimeout = DefaultDialTimeout
	}
	if c.Logger == nil {
		c.Logger = zap.NewNop()
	}
	cli, err := clientv3.New(clientv3.Config{
		Endpoints:   c.Endpoints,
		TLS:         tlsCfg,
		DialTimeout: c.DialTimeout,
		Logger:      c.Logger,
		DialOptions: []grpc.DialOption{grpc.WithConnectParams(grpc.ConnectParams{
			Backoff:           backoff.Config{BaseDelay: time.Second, Multiplier: 1.6, Jitter: 0.2, MaxDelay: maxReconnectDelay},
			MinConnectTimeout: c.DialTimeout,
		})},
	})
	if err != nil {
		return nil, fmt.Errorf("etcd: client for %v: %w", c.Endpoints, err)
	}
	return cli, nil
}
