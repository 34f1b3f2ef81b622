// go-baseline runs the benchmark reconciler on the upstream Go multicluster-runtime, so tools/bench can put the Go
// figures beside the TypeScript ones from the same run against the same in-memory API servers.
//
// It speaks the bench runner protocol: commands as JSON lines on stdin ({"id":1,"cmd":"stats"}), answers and events
// as JSON lines on stdout. Clusters come from a kubeconfig folder (--provider file) or from kubeconfig Secrets on the
// host cluster (--provider secret, upstream's providers/kubeconfig). The folder provider is ours: fsnotify plus
// upstream's pkg/clusters (start, wait for cache sync, engage), loading each file concurrently. Upstream's
// providers/file (a separate module; tools/go-upstream-providers runs v0.23.3) engages files one at a time and
// reloads every file on every event, which would put that provider's pace, not the runtime's, into Go's figures.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/providers/kubeconfig"
)

// sentAtAnnotation carries the writer's wall clock (µs since the epoch) when it sent the update.
const sentAtAnnotation = "bench.multicluster-runtime.io/sent-at"

// maxSamples bounds the latency samples kept between two stats commands.
const maxSamples = 500_000

func nowMicros() int64 { return time.Now().UnixMicro() }

// output serialises JSON lines on stdout.
type output struct {
	mu  sync.Mutex
	enc *json.Encoder
}

func (o *output) send(v map[string]any) {
	o.mu.Lock()
	defer o.mu.Unlock()
	_ = o.enc.Encode(v)
}

// recorder holds what the reconciler saw since the last reset.
type recorder struct {
	out        *output
	mu         sync.Mutex
	reconciles int64
	samples    []int64
	first      map[string]bool
}

func (r *recorder) record(clusterName string, cm *corev1.ConfigMap) {
	now := nowMicros()
	r.mu.Lock()
	r.reconciles++
	if cm != nil {
		if v, ok := cm.Annotations[sentAtAnnotation]; ok {
			if sent, err := strconv.ParseInt(v, 10, 64); err == nil && len(r.samples) < maxSamples {
				r.samples = append(r.samples, now-sent)
			}
		}
	}
	isFirst := !r.first[clusterName]
	r.first[clusterName] = true
	r.mu.Unlock()
	if isFirst {
		r.out.send(map[string]any{"type": "first", "cluster": clusterName, "t": now})
	}
}

func (r *recorder) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reconciles = 0
	r.samples = nil
}

func (r *recorder) stats() map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	samples := r.samples
	if samples == nil {
		samples = []int64{}
	}
	return map[string]any{"reconciles": r.reconciles, "samples": samples}
}

// folderProvider engages one cluster per *.kubeconfig file in a folder, named after the file (without extension).
type folderProvider struct {
	clusters.Clusters[cluster.Cluster]
	dir string
}

func newFolderProvider(dir string) *folderProvider {
	p := &folderProvider{Clusters: clusters.New[cluster.Cluster](), dir: dir}
	p.ErrorHandler = func(err error, msg string, kv ...any) {
		fmt.Fprintf(os.Stderr, "go-baseline: %s: %v %v\n", msg, err, kv)
	}
	return p
}

func clusterNameOf(path string) (string, bool) {
	base := filepath.Base(path)
	if !strings.HasSuffix(base, ".kubeconfig") || strings.HasPrefix(base, ".") {
		return "", false
	}
	return strings.TrimSuffix(base, ".kubeconfig"), true
}

func (p *folderProvider) load(ctx context.Context, path string, aware multicluster.Aware) {
	name, ok := clusterNameOf(path)
	if !ok {
		return
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return // gone again, or unreadable: the next event decides
	}
	cfg, err := clientcmd.RESTConfigFromKubeConfig(data)
	if err != nil {
		p.ErrorHandler(err, "bad kubeconfig", "path", path)
		return
	}
	cl, err := cluster.New(cfg)
	if err != nil {
		p.ErrorHandler(err, "cannot create cluster", "path", path)
		return
	}
	if err := p.AddOrReplace(ctx, multicluster.ClusterName(name), cl, aware); err != nil {
		p.ErrorHandler(err, "cannot engage cluster", "path", path)
	}
}

// Start watches the folder and engages clusters until ctx ends.
func (p *folderProvider) Start(ctx context.Context, aware multicluster.Aware) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer func() { _ = w.Close() }()
	if err := w.Add(p.dir); err != nil {
		return err
	}
	entries, err := os.ReadDir(p.dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		go p.load(ctx, filepath.Join(p.dir, e.Name()), aware)
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-w.Errors:
			p.ErrorHandler(err, "watch error")
		case ev := <-w.Events:
			name, ok := clusterNameOf(ev.Name)
			if !ok {
				continue
			}
			if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
				p.Remove(multicluster.ClusterName(name))
			} else if ev.Has(fsnotify.Create) || ev.Has(fsnotify.Write) {
				go p.load(ctx, ev.Name, aware)
			}
		}
	}
}

func memory() map[string]any {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return map[string]any{"heapBytes": ms.HeapAlloc, "rssBytes": rssBytes()}
}

// rssBytes reads VmRSS from /proc (Linux); 0 elsewhere.
func rssBytes() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			fields := strings.Fields(line)
			if len(fields) >= 2 {
				kb, _ := strconv.ParseInt(fields[1], 10, 64)
				return kb * 1024
			}
		}
	}
	return 0
}

func cpuMillis() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e6
}

func main() {
	providerKind := flag.String("provider", "file", "where clusters come from: file (a kubeconfig folder) or secret (kubeconfig Secrets on the host)")
	dir := flag.String("dir", "", "the kubeconfig folder (--provider file)")
	hostKubeconfig := flag.String("host-kubeconfig", "", "kubeconfig of the host cluster (the manager's local cluster)")
	namespace := flag.String("namespace", "default", "namespace of the kubeconfig Secrets (--provider secret)")
	concurrency := flag.Int("concurrency", 1, "MaxConcurrentReconciles")
	flag.Parse()
	klog.SetOutput(os.Stderr)
	log.SetLogger(klog.Background())
	ctrl.SetLogger(klog.Background())

	if err := run(*providerKind, *dir, *hostKubeconfig, *namespace, *concurrency); err != nil {
		fmt.Fprintf(os.Stderr, "go-baseline: %v\n", err)
		os.Exit(1)
	}
}

func run(providerKind, dir, hostKubeconfig, namespace string, concurrency int) error {
	if hostKubeconfig == "" {
		return errors.New("--host-kubeconfig is required")
	}
	hostCfg, err := clientcmd.BuildConfigFromFlags("", hostKubeconfig)
	if err != nil {
		return fmt.Errorf("host kubeconfig: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	out := &output{enc: json.NewEncoder(os.Stdout)}
	rec := &recorder{out: out, first: map[string]bool{}}
	opts := manager.Options{Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0"}

	var provider multicluster.Provider
	var lister func() int
	var secrets *kubeconfig.Provider
	switch providerKind {
	case "file":
		if dir == "" {
			return errors.New("--dir is required with --provider file")
		}
		fp := newFolderProvider(dir)
		provider, lister = fp, func() int { return len(fp.ClusterNames()) }
	case "secret":
		secrets = kubeconfig.New(kubeconfig.Options{Namespace: namespace})
		provider, lister = secrets, func() int { return len(secrets.ListClusters()) }
	default:
		return fmt.Errorf("--provider must be file or secret, got %q", providerKind)
	}
	mgr, err := mcmanager.New(hostCfg, provider, opts)
	if err != nil {
		return fmt.Errorf("manager: %w", err)
	}
	if secrets != nil {
		if err := secrets.SetupWithManager(ctx, mgr); err != nil {
			return fmt.Errorf("kubeconfig provider: %w", err)
		}
	}

	err = mcbuilder.ControllerManagedBy(mgr).
		Named("bench").
		For(&corev1.ConfigMap{}).
		WithOptions(controller.TypedOptions[mcreconcile.Request]{MaxConcurrentReconciles: concurrency}).
		Complete(mcreconcile.Func(func(ctx context.Context, req mcreconcile.Request) (ctrl.Result, error) {
			cl, err := mgr.GetCluster(ctx, req.ClusterName)
			if err != nil {
				return ctrl.Result{}, nil // vanished: drop
			}
			cm := &corev1.ConfigMap{}
			if err := cl.GetClient().Get(ctx, req.NamespacedName, cm); err != nil {
				if apierrors.IsNotFound(err) {
					rec.record(string(req.ClusterName), nil)
					return ctrl.Result{}, nil
				}
				return ctrl.Result{}, err
			}
			rec.record(string(req.ClusterName), cm)
			return ctrl.Result{}, nil
		}))
	if err != nil {
		return fmt.Errorf("controller: %w", err)
	}

	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	out.send(map[string]any{"type": "ready", "impl": "go-mcr", "pid": os.Getpid()})

	commands := make(chan map[string]any)
	go func() {
		scanner := bufio.NewScanner(os.Stdin)
		scanner.Buffer(make([]byte, 1<<20), 1<<20)
		for scanner.Scan() {
			var cmd map[string]any
			if json.Unmarshal(scanner.Bytes(), &cmd) == nil {
				commands <- cmd
			}
		}
		close(commands) // stdin closed: the parent is gone
	}()

	for {
		select {
		case err := <-done:
			if err != nil && !errors.Is(err, context.Canceled) {
				return err
			}
			return nil
		case cmd, ok := <-commands:
			if !ok {
				cancel()
				<-done
				return nil
			}
			reply := map[string]any{"id": cmd["id"], "type": cmd["cmd"]}
			switch cmd["cmd"] {
			case "engaged":
				reply["clusters"] = lister()
			case "reset":
				rec.reset()
				reply["cpuMs"] = cpuMillis()
			case "stats":
				for k, v := range rec.stats() {
					reply[k] = v
				}
				reply["cpuMs"] = cpuMillis()
			case "memory":
				for k, v := range memory() {
					reply[k] = v
				}
			case "stop":
				out.send(reply)
				cancel()
				<-done
				return nil
			default:
				reply["type"] = "error"
				reply["message"] = fmt.Sprintf("unknown command %v", cmd["cmd"])
			}
			out.send(reply)
		}
	}
}
