package peers

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/kubernetes"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
)

// Etcd is an etcd server embedded in the process (go.etcd.io/etcd/server/v3/embed), served on
// loopback, fsync off, with a client. Pods are kept as the apiserver keeps them, under
// /registry/pods/<namespace>/<name>.
type Etcd struct {
	Server *embed.Etcd
	Client *kubernetes.Client
	dir    string
}

// StartEtcd starts an embedded etcd in a fresh temporary directory.
func StartEtcd() (*Etcd, error) {
	dir, err := os.MkdirTemp("", "bench-etcd-")
	if err != nil {
		return nil, err
	}
	cfg := embed.NewConfig()
	cfg.Dir = dir
	cfg.UnsafeNoFsync = true
	cfg.QuotaBackendBytes = 16 << 30 // 1M pods of ~3.5 KiB, plus churn history
	cfg.MaxRequestBytes = 8 << 20
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	cfg.LogLevel = "error"
	ports, err := freePorts(2)
	if err != nil {
		return nil, err
	}
	client := url.URL{Scheme: "http", Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(ports[0]))}
	peer := url.URL{Scheme: "http", Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(ports[1]))}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{client}, []url.URL{client}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{peer}, []url.URL{peer}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(60 * time.Second):
		e.Close()
		os.RemoveAll(dir)
		return nil, errors.New("etcd took too long to start")
	}
	c, err := kubernetes.New(clientv3.Config{
		Endpoints:          []string{client.String()},
		DialTimeout:        10 * time.Second,
		Logger:             zap.NewNop(),
		MaxCallRecvMsgSize: 1 << 30,
		MaxCallSendMsgSize: 64 << 20,
	})
	if err != nil {
		e.Close()
		os.RemoveAll(dir)
		return nil, err
	}
	return &Etcd{Server: e, Client: c, dir: dir}, nil
}

// Close stops the server and removes its data.
func (e *Etcd) Close() {
	e.Client.Close()
	e.Server.Close()
	os.RemoveAll(e.dir)
}

func freePorts(n int) ([]int, error) {
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// EtcdKey is where the apiserver stores a pod.
func EtcdKey(namespace, name string) string {
	return EtcdPrefix + ResourcePrefix + namespace + "/" + name
}

// Load writes pods into etcd: Raw[i] under EtcdKey of pod i, in transactions of 100 puts from a
// few concurrent writers (setup only; not a measured path).
func (e *Etcd) Load(ctx context.Context, d *Dataset) error {
	const batch, writers = 100, 4
	ch := make(chan []int, writers)
	var wg sync.WaitGroup
	errs := make([]error, writers)
	for w := range writers {
		wg.Go(func() {
			for idxs := range ch {
				if errs[w] != nil {
					continue
				}
				ops := make([]clientv3.Op, len(idxs))
				for j, i := range idxs {
					ops[j] = clientv3.OpPut(EtcdKey(d.Gen.PodNamespace(i), d.Gen.PodName(i)), string(d.Raw[i]))
				}
				if _, err := e.Client.KV.Txn(ctx).Then(ops...).Commit(); err != nil {
					errs[w] = err
				}
			}
		})
	}
	for lo := 0; lo < len(d.Raw); lo += batch {
		idxs := make([]int, 0, batch)
		for i := lo; i < min(lo+batch, len(d.Raw)); i++ {
			idxs = append(idxs, i)
		}
		ch <- idxs
	}
	close(ch)
	wg.Wait()
	return errors.Join(errs...)
}

// Revision returns etcd's current revision.
func (e *Etcd) Revision(ctx context.Context) (int64, error) {
	resp, err := e.Client.KV.Get(ctx, "/registry/health-probe")
	if err != nil {
		return 0, err
	}
	return resp.Header.Revision, nil
}

// ChangeWriter writes a stream of pod changes to etcd from a few goroutines, each owning the keys
// that hash to it, so that changes of one pod keep their order while different pods are written
// concurrently. Put for ADDED/MODIFIED, Delete for DELETED.
type ChangeWriter struct {
	e    *Etcd
	ch   []chan change
	wg   sync.WaitGroup
	mu   sync.Mutex
	errs []error
}

type change struct {
	key    string
	value  []byte // nil: delete
	notify func()
}

// NewChangeWriter starts writers goroutines.
func (e *Etcd) NewChangeWriter(ctx context.Context, writers int) *ChangeWriter {
	w := &ChangeWriter{e: e, ch: make([]chan change, writers)}
	for i := range w.ch {
		w.ch[i] = make(chan change, 256)
		w.wg.Go(func() {
			for c := range w.ch[i] {
				var err error
				if c.value == nil {
					_, err = e.Client.KV.Delete(ctx, c.key)
				} else {
					_, err = e.Client.KV.Put(ctx, c.key, string(c.value))
				}
				if err != nil {
					w.mu.Lock()
					w.errs = append(w.errs, fmt.Errorf("%s: %w", c.key, err))
					w.mu.Unlock()
				}
				if c.notify != nil {
					c.notify()
				}
			}
		})
	}
	return w
}

// Put queues a put (value != nil) or a delete (value == nil) of key.
func (w *ChangeWriter) Put(key string, value []byte) {
	h := uint32(2166136261)
	for i := 0; i < len(key); i++ {
		h = (h ^ uint32(key[i])) * 16777619
	}
	w.ch[h%uint32(len(w.ch))] <- change{key: key, value: value}
}

// Close waits for every queued change to be written and returns the first errors.
func (w *ChangeWriter) Close() error {
	for _, c := range w.ch {
		close(c)
	}
	w.wg.Wait()
	return errors.Join(w.errs...)
}
