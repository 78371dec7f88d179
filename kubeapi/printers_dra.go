package kubeapi

import (
	"strings"
	"time"

	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Printers of the dynamic resource allocation kinds (resource.k8s.io/v1) and of
// StorageVersionMigrations, written from what kube-apiserver 1.37.2 prints for them
// (reference/observed-tables.md, kubeapi/testdata/tables/).

func resourceClaimPrinter() *Printer {
	return &Printer{
		Columns: []metav1.TableColumnDefinition{
			nameColumn,
			{Name: "State", Type: "string", Description: "A summary of the current state (allocated, pending, reserved, etc.)."},
			ageColumn,
		},
		Row: func(obj []byte, now time.Time) metav1.TableRow {
			meta, _, status := sections(obj)
			var states []string
			deleting := present(meta.Get("deletionTimestamp"))
			if deleting {
				states = append(states, "deleted")
			}
			if !present(status.Get("allocation")) {
				if !deleting {
					states = append(states, "pending")
				}
			} else {
				states = append(states, "allocated")
				if len(status.Get("reservedFor").Array()) > 0 {
					states = append(states, "reserved")
				}
			}
			return metav1.TableRow{Cells: []any{meta.Get("name").String(), strings.Join(states, ","), age(meta.Get("creationTimestamp"), now)}}
		},
	}
}

func resourceSlicePrinter() *Printer {
	spec := resourcev1.ResourceSliceSpec{}.SwaggerDoc()
	return &Printer{
		Columns: []metav1.TableColumnDefinition{
			nameColumn,
			{Name: "Node", Type: "string", Description: spec["nodeName"]},
			{Name: "Driver", Type: "string", Description: spec["driver"]},
			{Name: "Pool", Type: "string", Description: resourcev1.ResourcePool{}.SwaggerDoc()["name"]},
			ageColumn,
		},
		Row: func(obj []byte, now time.Time) metav1.TableRow {
			meta, spec, _ := sections(obj)
			return metav1.TableRow{Cells: []any{
				meta.Get("name").String(), spec.Get("nodeName").String(), spec.Get("driver").String(), spec.Get("pool.name").String(),
				age(meta.Get("creationTimestamp"), now),
			}}
		},
	}
}

func deviceTaintRulePrinter() *Printer {
	doc := resourcev1.DeviceTaint{}.SwaggerDoc()
	return &Printer{
		Columns: []metav1.TableColumnDefinition{
			nameColumn,
			{Name: "Key", Type: "string", Description: doc["key"]},
			{Name: "Value", Type: "string", Description: doc["value"]},
			{Name: "Effect", Type: "string", Description: doc["effect"]},
			{Name: "TimeAdded", Type: "string", Description: doc["timeAdded"]},
			ageColumn,
		},
		Row: func(obj []byte, now time.Time) metav1.TableRow {
			meta, spec, _ := sections(obj)
			taint := spec.Get("taint")
			added := ""
			if ts := taint.Get("timeAdded"); present(ts) {
				added = age(ts, now)
			}
			return metav1.TableRow{Cells: []any{
				meta.Get("name").String(), taint.Get("key").String(), taint.Get("value").String(), taint.Get("effect").String(),
				added, age(meta.Get("creationTimestamp"), now),
			}}
		},
	}
}

func storageVersionMigrationPrinter() *Printer {
	return &Printer{
		Columns: []metav1.TableColumnDefinition{
			// The apiserver gives this Name column no "name" format.
			{Name: "Name", Type: "string", Description: objectMetaDoc["name"]},
			{Name: "Resource", Type: "string", Description: "GroupResource to migrate"},
			{Name: "Status", Type: "string", Description: "Status of the migration"},
		},
		Row: func(obj []byte, _ time.Time) metav1.TableRow {
			meta, spec, status := sections(obj)
			gr := schema.GroupResource{Group: spec.Get("resource.group").String(), Resource: spec.Get("resource.resource").String()}
			state := "Unknown" // the last true condition of Running, Failed, Succeeded
			for _, c := range status.Get("conditions").Array() {
				if c.Get("status").String() != "True" {
					continue
				}
				switch t := c.Get("type").String(); t {
				case "Running", "Failed", "Succeeded":
					state = t
				}
			}
			return metav1.TableRow{Cells: []any{meta.Get("name").String(), gr.String(), state}}
		},
	}
}
