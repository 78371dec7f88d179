package kubeapi

import (
	"time"

	"github.com/tidwall/gjson"
	certificatesv1 "k8s.io/api/certificates/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Printers of certificates.k8s.io/v1's ClusterTrustBundles and PodCertificateRequests, written from
// k8s.io/kubernetes pkg/printers/internalversion (printClusterTrustBundle, printPodCertificateRequest)
// and checked against kube-apiserver 1.37.2's Tables (cmd/watchcache/testdata/etcd-older-storage.json).

func clusterTrustBundlePrinter() *Printer {
	return &Printer{
		Columns: []metav1.TableColumnDefinition{
			nameColumn,
			{Name: "SignerName", Type: "string", Description: certificatesv1.ClusterTrustBundleSpec{}.SwaggerDoc()["signerName"]},
		},
		Row: func(obj []byte, _ time.Time) metav1.TableRow {
			meta, spec, _ := sections(obj)
			signer := spec.Get("signerName").String()
			if signer == "" {
				signer = "<none>"
			}
			return metav1.TableRow{Cells: []any{meta.Get("name").String(), signer}}
		},
	}
}

func podCertificateRequestPrinter() *Printer {
	doc := certificatesv1.PodCertificateRequestSpec{}.SwaggerDoc()
	return &Printer{
		Columns: []metav1.TableColumnDefinition{
			nameColumn,
			{Name: "PodName", Type: "string", Description: doc["podName"]},
			{Name: "ServiceAccountName", Type: "string", Description: doc["serviceAccountName"]},
			{Name: "NodeName", Type: "string", Description: doc["nodeName"]},
			{Name: "SignerName", Type: "string", Description: doc["signerName"]},
			{Name: "State", Type: "string", Description: "Is the request Pending, Issued, Denied, or Failed?"},
			// The apiserver prints Tables wide: this column's cells are always there.
			{Name: "UnverifiedUserAnnotations", Type: "string", Description: doc["unverifiedUserAnnotations"]},
		},
		Row: func(obj []byte, _ time.Time) metav1.TableRow {
			meta, spec, status := sections(obj)
			// The last condition of one of the three types decides, whatever its status: the
			// printer reads the type alone (the types are mutually exclusive and always True).
			state := "Pending"
			for _, c := range status.Get("conditions").Array() {
				switch t := c.Get("type").String(); t {
				case "Issued", "Denied", "Failed":
					state = t
				}
			}
			annotations := map[string]string{}
			spec.Get("unverifiedUserAnnotations").ForEach(func(k, v gjson.Result) bool {
				annotations[k.String()] = v.String()
				return true
			})
			return metav1.TableRow{Cells: []any{
				meta.Get("name").String(), spec.Get("podName").String(), spec.Get("serviceAccountName").String(),
				spec.Get("nodeName").String(), spec.Get("signerName").String(), state, labels.FormatLabels(annotations),
			}}
		},
	}
}
