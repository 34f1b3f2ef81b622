// Command etcd is the upstream etcd server (go.etcd.io/etcd/server/v3/etcdmain), so that it accepts the same flags
// as a released etcd binary found in KUBEBUILDER_ASSETS.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
