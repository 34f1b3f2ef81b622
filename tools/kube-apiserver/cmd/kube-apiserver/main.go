// Command kube-apiserver is the upstream kube-apiserver, built from the k8s.io/kubernetes module so that tests can
// run against the real thing without downloading binaries. It mirrors k8s.io/kubernetes/cmd/kube-apiserver, whose
// package main cannot be built from outside its own module.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"          // JSON log format, as the upstream binary
	_ "k8s.io/component-base/metrics/prometheus/clientgo" // client-go metrics, as the upstream binary
	_ "k8s.io/component-base/metrics/prometheus/version"  // version metric, as the upstream binary
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
)

func main() {
	os.Exit(cli.Run(app.NewAPIServerCommand()))
}
