// Command builtin-nulls prints, as JSON, the fields of the built-in API types that Go's encoding/json writes as null
// when they are unset: a slice, map or pointer whose json tag has no omitempty (or omitzero). OpenAPI does not say
// which fields those are, so the in-memory API server (packages/envtest/src/api/builtin-nulls.ts) learns it here, from
// the Go types of client-go's scheme and apiextensions-apiserver at the versions go.mod pins (those of the pinned
// kube-apiserver). Definitions are named as builtin-schemas.ts names them: `api.rbac.v1.ClusterRole`.
package main

import (
	"encoding/json"
	"os"
	"reflect"
	"sort"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
)

func main() {
	s := runtime.NewScheme()
	if err := scheme.AddToScheme(s); err != nil {
		panic(err)
	}
	if err := apiextensionsv1.AddToScheme(s); err != nil {
		panic(err)
	}
	nulls := map[string][]string{}
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Ptr || t.Kind() == reflect.Slice || t.Kind() == reflect.Map || t.Kind() == reflect.Array {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || seen[t] || ownJSON(t) {
			return
		}
		seen[t] = true
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || name == "-" {
				continue
			}
			if f.Anonymous && name == "" {
				walk(f.Type)
				continue
			}
			k := f.Type.Kind()
			nilable := k == reflect.Slice || k == reflect.Map || k == reflect.Ptr
			if nilable && !hasOption(opts, "omitempty") && !hasOption(opts, "omitzero") {
				def := definition(t)
				nulls[def] = append(nulls[def], name)
			}
			walk(f.Type)
		}
	}
	for gvk, t := range s.AllKnownTypes() {
		if gvk.Version != runtime.APIVersionInternal && !strings.HasSuffix(gvk.Kind, "List") {
			walk(t)
		}
	}
	for _, fields := range nulls {
		sort.Strings(fields)
	}
	enc := json.NewEncoder(os.Stdout)
	if err := enc.Encode(nulls); err != nil { // encoding/json sorts map keys
		panic(err)
	}
}

func hasOption(opts, want string) bool {
	for _, o := range strings.Split(opts, ",") {
		if o == want {
			return true
		}
	}
	return false
}

// ownJSON: a struct with its own JSON form (Quantity, Time, RawExtension, ...), whose Go fields are not JSON fields.
func ownJSON(t reflect.Type) bool {
	_, ok := reflect.New(t).Interface().(json.Marshaler)
	return ok
}

// definition names a Go type as OpenAPI does, less the `io.k8s.` prefix: k8s.io/api/rbac/v1.ClusterRole is
// api.rbac.v1.ClusterRole.
func definition(t reflect.Type) string {
	return strings.ReplaceAll(strings.TrimPrefix(t.PkgPath(), "k8s.io/"), "/", ".") + "." + t.Name()
}
