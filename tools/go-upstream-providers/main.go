// go-upstream-providers runs upstream Go providers with a uniform controller, so a test can run one beside this
// repository's provider against the same fleet and require that both see the same clusters and reconcile the same
// objects. The providers come from the Go module proxy: the kcp providers (github.com/kcp-dev/multicluster-provider)
// and the kubeconfig Secret and file providers (sigs.k8s.io/multicluster-runtime and its providers/file module).
//
// --provider apiexport (default) follows the APIExportEndpointSlice --name in the workspace the kubeconfig points at
// and reconciles ConfigMaps in every engaged logical cluster. --provider initializingworkspaces follows the
// WorkspaceType --name and reconciles each engaged cluster's LogicalCluster; with --initialize it then removes that
// type's initializer from status.initializers, as an initialization controller does.
//
// --provider kubeconfig engages a cluster per labelled Secret in --namespace of the cluster --kubeconfig points at
// (the host); --provider file engages every context of the kubeconfig files in --files and --dirs (comma-separated;
// the host of --kubeconfig only runs the manager); --provider namespace engages every namespace of the cluster
// --kubeconfig points at; --provider multi composes the two as "files" and "ns". All reconcile ConfigMaps in every
// engaged cluster.
//
// Output is JSON lines on stdout, one per fact:
//
//	{"type":"ready"}
//	{"type":"engaged","cluster":"<name>","engagement":<n>}     {"type":"disengaged","cluster":"<name>","engagement":<n>}
//	{"type":"reconcile","cluster":"<name>","namespace":"…","name":"…","found":true,"resourceVersion":"…","data":{…}}
//	{"type":"initialized","cluster":"<name>","initializer":"…"}
//
// Logs go to stderr. The program stops on SIGTERM/SIGINT or when stdin closes (its parent went away).
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
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"

	kcpapisv1alpha1 "github.com/kcp-dev/sdk/apis/apis/v1alpha1"
	kcpcorev1alpha1 "github.com/kcp-dev/sdk/apis/core/v1alpha1"
	kcptenancyv1alpha1 "github.com/kcp-dev/sdk/apis/tenancy/v1alpha1"

	"github.com/kcp-dev/multicluster-provider/apiexport"
	"github.com/kcp-dev/multicluster-provider/initializingworkspaces"

	fileprovider "sigs.k8s.io/multicluster-runtime/providers/file"
	kubeconfigprovider "sigs.k8s.io/multicluster-runtime/providers/kubeconfig"
	multiprovider "sigs.k8s.io/multicluster-runtime/providers/multi"
	namespaceprovider "sigs.k8s.io/multicluster-runtime/providers/namespace"
)

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

// observer is a manager runnable that is engaged with every cluster the provider engages (mcr's manager fans
// Engage out to every multicluster.Aware runnable) and reports engagement and its end. Each engagement has a number,
// as its end is reported from a goroutine and may come after the cluster's next engagement.
type observer struct {
	out         *output
	engagements atomic.Int64
}

func (o *observer) Start(ctx context.Context) error {
	<-ctx.Done()
	return nil
}

func (o *observer) Engage(ctx context.Context, name multicluster.ClusterName, _ cluster.Cluster) error {
	n := o.engagements.Add(1)
	o.out.send(map[string]any{"type": "engaged", "cluster": string(name), "engagement": n})
	go func() {
		<-ctx.Done()
		o.out.send(map[string]any{"type": "disengaged", "cluster": string(name), "engagement": n})
	}()
	return nil
}

type options struct {
	kubeconfig string
	provider   string
	name       string
	initialize bool
	events     bool
	namespace  string
	files      string
	dirs       string
}

func main() {
	var o options
	// controller-runtime registers --kubeconfig itself (sigs.k8s.io/controller-runtime/pkg/client/config); it names
	// the kubeconfig whose current context is the workspace holding the endpoint slice or workspace type (required).
	flag.StringVar(&o.provider, "provider", "apiexport", "apiexport, initializingworkspaces, kubeconfig, file, namespace or multi")
	flag.StringVar(&o.name, "name", "", "the APIExportEndpointSlice (apiexport) or WorkspaceType (initializingworkspaces) name (required)")
	flag.BoolVar(&o.initialize, "initialize", false, "initializingworkspaces: remove the type's initializer once a cluster was reconciled")
	flag.BoolVar(&o.events, "events", false, "apiexport: record a Normal event on each reconciled ConfigMap through the cluster's recorder")
	flag.StringVar(&o.namespace, "namespace", "", "kubeconfig: the namespace of the labelled Secrets (required)")
	flag.StringVar(&o.files, "files", "", "file, multi: comma-separated kubeconfig files")
	flag.StringVar(&o.dirs, "dirs", "", "file, multi: comma-separated folders searched with the file provider's default globs")
	klog.InitFlags(nil)
	flag.Parse()
	if f := flag.Lookup("kubeconfig"); f != nil {
		o.kubeconfig = f.Value.String()
	}
	klog.SetOutput(os.Stderr)
	log.SetLogger(klog.Background())
	ctrl.SetLogger(klog.Background())

	if err := run(o); err != nil {
		fmt.Fprintf(os.Stderr, "go-upstream-providers: %v\n", err)
		os.Exit(1)
	}
}

func run(o options) error {
	if o.kubeconfig == "" {
		return errors.New("--kubeconfig is required")
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", o.kubeconfig)
	if err != nil {
		return fmt.Errorf("kubeconfig: %w", err)
	}
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return err
	}
	for _, add := range []func(*runtime.Scheme) error{kcpapisv1alpha1.AddToScheme, kcpcorev1alpha1.AddToScheme, kcptenancyv1alpha1.AddToScheme} {
		if err := add(scheme); err != nil {
			return err
		}
	}

	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer cancel()
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		cancel()
	}()

	out := &output{enc: json.NewEncoder(os.Stdout)}
	var host cluster.Cluster
	if o.provider == "namespace" || o.provider == "multi" {
		// The namespaces' cluster, started by the manager (added below).
		if host, err = cluster.New(cfg, func(co *cluster.Options) { co.Scheme = scheme }); err != nil {
			return fmt.Errorf("host cluster: %w", err)
		}
	}
	provider, err := newProvider(cfg, scheme, host, o)
	if err != nil {
		return fmt.Errorf("provider: %w", err)
	}
	mgr, err := mcmanager.New(cfg, provider, manager.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
	})
	if err != nil {
		return fmt.Errorf("manager: %w", err)
	}

	// Added before the controller: mcr engages runnables in the order they were added, so "engaged" is printed before
	// any reconcile in that cluster.
	if err := mgr.Add(&observer{out: out}); err != nil {
		return err
	}
	if host != nil {
		if err := mgr.GetLocalManager().Add(host); err != nil {
			return err
		}
	}
	if p, ok := provider.(*kubeconfigprovider.Provider); ok {
		if err := p.SetupWithManager(ctx, mgr); err != nil {
			return fmt.Errorf("provider setup: %w", err)
		}
	}
	if o.provider != "initializingworkspaces" {
		err = configMapController(mgr, out, o.events, namespaceOf(o.provider))
	} else {
		err = logicalClusterController(mgr, out, o.name, o.initialize)
	}
	if err != nil {
		return fmt.Errorf("controller: %w", err)
	}

	out.send(map[string]any{"type": "ready"})
	if err := mgr.Start(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// newProvider builds the provider --provider names, checking the flags it needs.
func newProvider(cfg *rest.Config, scheme *runtime.Scheme, host cluster.Cluster, o options) (multicluster.Provider, error) {
	switch o.provider {
	case "apiexport", "initializingworkspaces":
		if o.name == "" {
			return nil, fmt.Errorf("--name is required with --provider %s", o.provider)
		}
		if o.provider == "apiexport" {
			return apiexport.New(cfg, o.name, apiexport.Options{Scheme: scheme})
		}
		return initializingworkspaces.New(cfg, o.name, initializingworkspaces.Options{Scheme: scheme})
	case "kubeconfig":
		if o.namespace == "" {
			return nil, errors.New("--namespace is required with --provider kubeconfig")
		}
		return kubeconfigprovider.New(kubeconfigprovider.Options{Namespace: o.namespace}), nil
	case "file":
		files, dirs := splitList(o.files), splitList(o.dirs)
		if len(files) == 0 && len(dirs) == 0 {
			// Upstream would fall back to $KUBECONFIG, ~/.kube/config or the working directory.
			return nil, errors.New("--files or --dirs is required with --provider file")
		}
		return fileprovider.New(fileprovider.Options{KubeconfigFiles: files, KubeconfigDirs: dirs})
	case "namespace":
		return namespaceprovider.New(host), nil
	case "multi":
		files, dirs := splitList(o.files), splitList(o.dirs)
		if len(files) == 0 && len(dirs) == 0 {
			return nil, errors.New("--files or --dirs is required with --provider multi")
		}
		fp, err := fileprovider.New(fileprovider.Options{KubeconfigFiles: files, KubeconfigDirs: dirs})
		if err != nil {
			return nil, err
		}
		p := multiprovider.New(multiprovider.Options{})
		if err := p.AddProvider("files", fp); err != nil {
			return nil, err
		}
		if err := p.AddProvider("ns", namespaceprovider.New(host)); err != nil {
			return nil, err
		}
		return p, nil
	default:
		return nil, fmt.Errorf("--provider must be apiexport, initializingworkspaces, kubeconfig, file, namespace or multi, got %q", o.provider)
	}
}

// namespaceOf says which namespace a reconciled object is really in, for providers whose clusters are namespaces
// presented as `default` (the namespace provider, alone or as multi's "ns"); nil for the others.
func namespaceOf(provider string) func(mcreconcile.Request) string {
	switch provider {
	case "namespace":
		return func(req mcreconcile.Request) string { return string(req.ClusterName) }
	case "multi":
		return func(req mcreconcile.Request) string {
			if ns, ok := strings.CutPrefix(string(req.ClusterName), "ns#"); ok {
				return ns
			}
			return req.Namespace
		}
	default:
		return nil
	}
}

func splitList(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// configMapController reconciles every ConfigMap of every engaged cluster and reports what it read from the
// cluster's client (the shared wildcard cache, as upstream's ScopedCluster reads). Where clusters are namespaces that
// upstream presents as `default`, realNamespace names the namespace facts report, so they compare with a provider
// that keeps objects in their namespace.
func configMapController(mgr mcmanager.Manager, out *output, events bool, realNamespace func(mcreconcile.Request) string) error {
	return mcbuilder.ControllerManagedBy(mgr).
		Named("cross-check").
		For(&corev1.ConfigMap{}).
		Complete(mcreconcile.Func(func(ctx context.Context, req mcreconcile.Request) (ctrl.Result, error) {
			cl, err := mgr.GetCluster(ctx, req.ClusterName)
			if err != nil {
				return ctrl.Result{}, nil // disengaged meanwhile: nothing to do
			}
			fact := map[string]any{"type": "reconcile", "cluster": string(req.ClusterName), "namespace": req.Namespace, "name": req.Name}
			if realNamespace != nil {
				fact["namespace"] = realNamespace(req)
			}
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
			if events {
				cl.GetEventRecorder("cross-check").Eventf(cm, nil, corev1.EventTypeNormal, "Reconciled", "Reconcile", "reconciled %s", cm.Name)
			}
			return ctrl.Result{}, nil
		}))
}

// logicalClusterController reconciles the LogicalCluster of every initializing workspace and, with initialize,
// removes the workspace type's initializer from its status (live client: the initializing VW's wildcard only
// serves LogicalClusters, so upstream gives these clusters no cache-backed reads).
func logicalClusterController(mgr mcmanager.Manager, out *output, workspaceType string, initialize bool) error {
	return mcbuilder.ControllerManagedBy(mgr).
		Named("cross-check").
		For(&kcpcorev1alpha1.LogicalCluster{}).
		Complete(mcreconcile.Func(func(ctx context.Context, req mcreconcile.Request) (ctrl.Result, error) {
			cl, err := mgr.GetCluster(ctx, req.ClusterName)
			if err != nil {
				return ctrl.Result{}, nil
			}
			fact := map[string]any{"type": "reconcile", "cluster": string(req.ClusterName), "namespace": req.Namespace, "name": req.Name}
			lc := &kcpcorev1alpha1.LogicalCluster{}
			if err := cl.GetClient().Get(ctx, req.NamespacedName, lc); err != nil {
				if !apierrors.IsNotFound(err) {
					return ctrl.Result{}, err
				}
				fact["found"] = false
				out.send(fact)
				return ctrl.Result{}, nil
			}
			initializers := make([]string, 0, len(lc.Status.Initializers))
			for _, i := range lc.Status.Initializers {
				initializers = append(initializers, string(i))
			}
			fact["found"] = true
			fact["resourceVersion"] = lc.ResourceVersion
			fact["initializers"] = initializers
			out.send(fact)
			if !initialize {
				return ctrl.Result{}, nil
			}
			mine := initializerOf(lc, workspaceType)
			if mine == "" {
				return ctrl.Result{}, nil
			}
			patch := client.MergeFromWithOptions(lc.DeepCopy(), client.MergeFromWithOptimisticLock{})
			lc.Status.Initializers = slices.DeleteFunc(lc.Status.Initializers, func(i kcpcorev1alpha1.LogicalClusterInitializer) bool {
				return string(i) == mine
			})
			if err := cl.GetClient().Status().Patch(ctx, lc, patch); err != nil {
				return ctrl.Result{}, err
			}
			out.send(map[string]any{"type": "initialized", "cluster": string(req.ClusterName), "initializer": mine})
			return ctrl.Result{}, nil
		}))
}

// initializerOf finds the initializer of a workspace type named `workspaceType` (`<type's cluster>:<name>`).
func initializerOf(lc *kcpcorev1alpha1.LogicalCluster, workspaceType string) string {
	for _, i := range lc.Status.Initializers {
		s := string(i)
		if len(s) > len(workspaceType) && s[len(s)-len(workspaceType)-1:] == ":"+workspaceType {
			return s
		}
	}
	return ""
}
