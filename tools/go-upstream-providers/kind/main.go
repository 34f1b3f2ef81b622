// go-upstream-kind-provider runs upstream's kind provider (sigs.k8s.io/multicluster-runtime/providers/kind v0.23.1,
// the newest the Go module proxy serves) with the uniform ConfigMap controller of ../main.go, reporting the same
// JSON lines, so provider-kind's cross-check can run it beside KindProvider. It is a module of its own because that
// provider is built on multicluster-runtime v0.23.1, whose Provider and Aware interfaces (string cluster names) differ
// from v0.24.1's, which the other upstream providers need; so the few lines below are written again for that API.
//
// --prefix engages only kind clusters whose name starts with it. kind itself is found on PATH as a library user
// finds it: its node provider runs `docker` (a stand-in in tests).
//
// Output, one JSON line per fact: {"type":"ready"}, {"type":"engaged"|"disengaged","cluster":…,"engagement":n},
// {"type":"reconcile","cluster":…,"namespace":…,"name":…,"found":…,"resourceVersion":…,"data":{…}}. Logs go to
// stderr. The program stops on SIGTERM/SIGINT or when stdin closes.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	kindprovider "sigs.k8s.io/multicluster-runtime/providers/kind"
)

type output struct {
	mu  sync.Mutex
	enc *json.Encoder
}

func (o *output) send(v map[string]any) {
	o.mu.Lock()
	defer o.mu.Unlock()
	_ = o.enc.Encode(v)
}

// observer is engaged with every cluster the provider engages and reports engagement and its end, numbered.
type observer struct {
	out         *output
	engagements atomic.Int64
}

func (o *observer) Start(ctx context.Context) error {
	<-ctx.Done()
	return nil
}

func (o *observer) Engage(ctx context.Context, name string, _ cluster.Cluster) error {
	n := o.engagements.Add(1)
	o.out.send(map[string]any{"type": "engaged", "cluster": name, "engagement": n})
	go func() {
		<-ctx.Done()
		o.out.send(map[string]any{"type": "disengaged", "cluster": name, "engagement": n})
	}()
	return nil
}

func main() {
	prefix := flag.String("prefix", "", "engage only kind clusters whose name starts with this")
	klog.InitFlags(nil)
	flag.Parse()
	klog.SetOutput(os.Stderr)
	log.SetLogger(klog.Background())
	ctrl.SetLogger(klog.Background())
	kubeconfig := ""
	if f := flag.Lookup("kubeconfig"); f != nil {
		kubeconfig = f.Value.String()
	}
	if err := run(kubeconfig, *prefix); err != nil {
		fmt.Fprintf(os.Stderr, "go-upstream-kind-provider: %v\n", err)
		os.Exit(1)
	}
}

func run(kubeconfig, prefix string) error {
	if kubeconfig == "" {
		return errors.New("--kubeconfig (the host the manager runs against) is required")
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return fmt.Errorf("kubeconfig: %w", err)
	}
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer cancel()
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		cancel()
	}()

	out := &output{enc: json.NewEncoder(os.Stdout)}
	mgr, err := mcmanager.New(cfg, kindprovider.New(kindprovider.Options{Prefix: prefix}), manager.Options{
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
	})
	if err != nil {
		return fmt.Errorf("manager: %w", err)
	}
	if err := mgr.Add(&observer{out: out}); err != nil {
		return err
	}
	err = mcbuilder.ControllerManagedBy(mgr).
		Named("cross-check").
		For(&corev1.ConfigMap{}).
		Complete(mcreconcile.Func(func(ctx context.Context, req mcreconcile.Request) (ctrl.Result, error) {
			cl, err := mgr.GetCluster(ctx, req.ClusterName)
			if err != nil {
				return ctrl.Result{}, nil // disengaged meanwhile
			}
			fact := map[string]any{"type": "reconcile", "cluster": req.ClusterName, "namespace": req.Namespace, "name": req.Name}
			cm := &corev1.ConfigMap{}
			if err := cl.GetClient().Get(ctx, req.NamespacedName, cm); err != nil {
				if !apierrors.IsNotFound(err) {
					return ctrl.Result{}, err
				}
				fact["found"] = false
				out.send(fact)
				return ctrl.Result{}, nil
			}
			fact["found"] = true
			fact["resourceVersion"] = cm.ResourceVersion
			fact["data"] = cm.Data
			out.send(fact)
			return ctrl.Result{}, nil
		}))
	if err != nil {
		return fmt.Errorf("controller: %w", err)
	}
	out.send(map[string]any{"type": "ready"})
	if err := mgr.Start(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}
