// gardener-client reads a garden (or a seed) with Gardener's own Go API types and the calls the upstream Go provider
// (github.com/gardener/multicluster-provider) makes, and prints one JSON line per shoot: its member name as upstream
// names it, whether upstream's readiness rule engages it, and, for ready shoots, what the kubeconfig it gets reaches.
// Tests run it against envtest's fake garden, so the fake and provider-gardener are checked against code written
// elsewhere: Gardener's types decode the fake's objects and kubeconfig answers, and names and readiness line up.
//
// Usage: gardener-client -kubeconfig FILE [-topology garden|seed] [-expiration-seconds N]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"time"

	authenticationv1alpha1 "github.com/gardener/gardener/pkg/apis/authentication/v1alpha1"
	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// result is one shoot as upstream sees it.
type result struct {
	Name       string `json:"name"`
	Ready      bool   `json:"ready"`
	Server     string `json:"server,omitempty"`
	Namespaces int    `json:"namespaces,omitempty"`
	Expires    string `json:"expires,omitempty"`
	Error      string `json:"error,omitempty"`
}

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig of the garden or seed")
	topology := flag.String("topology", "garden", "garden or seed")
	expiration := flag.Int64("expiration-seconds", 600, "lifetime asked for each admin kubeconfig (garden)")
	flag.Parse()
	if err := run(*kubeconfig, *topology, *expiration); err != nil {
		fmt.Fprintln(os.Stderr, "gardener-client:", err)
		os.Exit(1)
	}
}

func run(kubeconfig, topology string, expiration int64) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, gardencorev1beta1.AddToScheme, authenticationv1alpha1.AddToScheme, extensionsv1alpha1.AddToScheme} {
		if err := add(scheme); err != nil {
			return err
		}
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var results []result
	switch topology {
	case "garden":
		results, err = garden(ctx, c, expiration)
	case "seed":
		results, err = seed(ctx, c)
	default:
		err = fmt.Errorf("unknown topology %q", topology)
	}
	if err != nil {
		return err
	}
	sort.Slice(results, func(i, j int) bool { return results[i].Name < results[j].Name })
	enc := json.NewEncoder(os.Stdout)
	for _, r := range results {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return nil
}

// garden follows upstream's garden topology: every Shoot, named by its NamespacedName, ready when it has a last
// operation that is not an unfinished Create, reached through shoots/adminkubeconfig.
func garden(ctx context.Context, c client.Client, expiration int64) ([]result, error) {
	var shoots gardencorev1beta1.ShootList
	if err := c.List(ctx, &shoots); err != nil {
		return nil, err
	}
	var out []result
	for i := range shoots.Items {
		shoot := &shoots.Items[i]
		r := result{Name: types.NamespacedName{Namespace: shoot.Namespace, Name: shoot.Name}.String()}
		op := shoot.Status.LastOperation
		r.Ready = op != nil && (op.Type != gardencorev1beta1.LastOperationTypeCreate || op.State == gardencorev1beta1.LastOperationStateSucceeded)
		if r.Ready {
			req := &authenticationv1alpha1.AdminKubeconfigRequest{Spec: authenticationv1alpha1.AdminKubeconfigRequestSpec{ExpirationSeconds: ptr.To(expiration)}}
			if err := c.SubResource("adminkubeconfig").Create(ctx, shoot, req); err != nil {
				r.Error = err.Error()
			} else {
				r.Expires = req.Status.ExpirationTimestamp.UTC().Format(time.RFC3339)
				reach(ctx, req.Status.Kubeconfig, &r)
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// seed follows upstream's seed topology: every extensions Cluster, named "/<name>" (upstream's NamespacedName of a
// cluster-scoped object), ready when the Secret "gardener" in the namespace of that name exists.
func seed(ctx context.Context, c client.Client) ([]result, error) {
	var clusters extensionsv1alpha1.ClusterList
	if err := c.List(ctx, &clusters); err != nil {
		return nil, err
	}
	var out []result
	for _, cluster := range clusters.Items {
		r := result{Name: types.NamespacedName{Name: cluster.Name}.String()}
		var secret corev1.Secret
		err := c.Get(ctx, types.NamespacedName{Namespace: cluster.Name, Name: "gardener"}, &secret)
		r.Ready = err == nil
		if err == nil {
			reach(ctx, secret.Data["kubeconfig"], &r)
		}
		out = append(out, r)
	}
	return out, nil
}

// reach builds a client from the kubeconfig as upstream does (clientcmd.RESTConfigFromKubeConfig) and lists namespaces.
func reach(ctx context.Context, kubeconfig []byte, r *result) {
	cfg, err := clientcmd.RESTConfigFromKubeConfig(kubeconfig)
	if err != nil {
		r.Error = err.Error()
		return
	}
	r.Server = cfg.Host
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		r.Error = err.Error()
		return
	}
	var namespaces corev1.NamespaceList
	if err := c.List(ctx, &namespaces); err != nil {
		r.Error = err.Error()
		return
	}
	r.Namespaces = len(namespaces.Items)
}
