//go:build tools

// Package tools pins what build.sh builds from sigs.k8s.io/cluster-inventory-api: the secretreader credential
// plugin's own packages, so `go mod tidy` keeps their dependencies in go.sum (access-check/ imports what it uses).
package tools

import (
	_ "k8s.io/client-go/kubernetes"
	_ "k8s.io/client-go/tools/clientcmd"
	_ "sigs.k8s.io/cluster-inventory-api/pkg/credentialplugin"
)
