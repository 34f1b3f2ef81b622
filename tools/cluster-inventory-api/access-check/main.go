// Command access-check reaches ClusterProfiles' clusters the way upstream's cluster-inventory-api provider does: through
// sigs.k8s.io/cluster-inventory-api's pkg/access (the code that provider calls) and client-go, so
// provider-cluster-inventory-api's tests can hold their own access rules against code written elsewhere.
//
//	access-check PROVIDER_FILE < profiles.json > results.json
//
// PROVIDER_FILE is the operator's access configuration (`--clusterprofile-provider-file`); stdin is a JSON list of
// ClusterProfiles. They go through one access.Config, in order, as a running provider's profiles would. For each, the
// rest.Config pkg/access builds is used for one GET /version, which makes client-go run the credential plugin (so the
// plugin sees what upstream hands it); the result is {"host": ..., "request": "ok" or the error} or {"error": ...}
// when pkg/access builds no config.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/cluster-inventory-api/apis/v1alpha1"
	"sigs.k8s.io/cluster-inventory-api/pkg/access"
)

type result struct {
	Host    string `json:"host,omitempty"`
	Request string `json:"request,omitempty"`
	Error   string `json:"error,omitempty"`
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: access-check PROVIDER_FILE < profiles.json")
		os.Exit(2)
	}
	cfg, err := access.NewFromFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var profiles []v1alpha1.ClusterProfile
	if err := json.NewDecoder(os.Stdin).Decode(&profiles); err != nil {
		fmt.Fprintln(os.Stderr, "reading profiles:", err)
		os.Exit(1)
	}
	results := make([]result, 0, len(profiles))
	for i := range profiles {
		results = append(results, reach(cfg, &profiles[i]))
	}
	out := json.NewEncoder(os.Stdout)
	out.SetIndent("", "  ")
	if err := out.Encode(results); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func reach(cfg *access.Config, profile *v1alpha1.ClusterProfile) result {
	rc, err := cfg.BuildConfigFromCP(profile)
	if err != nil {
		return result{Error: err.Error()}
	}
	rc.Timeout = 5 * time.Second
	r := result{Host: rc.Host, Request: "ok"}
	client, err := kubernetes.NewForConfig(rc)
	if err == nil {
		_, err = client.Discovery().ServerVersion()
	}
	if err != nil {
		r.Request = err.Error()
	}
	return r
}
