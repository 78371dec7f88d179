package kubeapi

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// recordedTable is one Table kube-apiserver 1.37.2 answered, as reference/record-tables.sh stores
// it: the request's path, the response's Date header and the Table, fetched with
// includeObject=Object so that every row holds the object it prints.
type recordedTable struct {
	Path  string `json:"path"`
	Date  string `json:"date"`
	Table struct {
		ColumnDefinitions []metav1.TableColumnDefinition `json:"columnDefinitions"`
		Rows              []struct {
			Cells      []json.RawMessage          `json:"cells"`
			Conditions []metav1.TableRowCondition `json:"conditions"`
			Object     json.RawMessage            `json:"object"`
		} `json:"rows"`
	} `json:"table"`
}

// groupResource is the group and resource of a list path: /api/v1/[namespaces/NS/]RESOURCE or
// /apis/GROUP/VERSION/[namespaces/NS/]RESOURCE.
func (r recordedTable) groupResource() schema.GroupResource {
	parts := strings.Split(strings.Trim(r.Path, "/"), "/")
	gr := schema.GroupResource{Resource: parts[len(parts)-1]}
	if parts[0] == "apis" {
		gr.Group = parts[1]
	}
	return gr
}

func readRecordedTables(t *testing.T) map[string]recordedTable {
	t.Helper()
	files, err := filepath.Glob("testdata/tables/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no recorded tables: %v", err)
	}
	out := map[string]recordedTable{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var r recordedTable
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".json")] = r
	}
	return out
}

// TestRecordedTables prints every object of every Table recorded from kube-apiserver 1.37.2
// (testdata/tables, reference/observed-tables.md) at the recording's Date, the time the apiserver
// measured ages against (it truncates to the second, as creation times and ages do), and compares
// the column definitions and every cell and row condition.
func TestRecordedTables(t *testing.T) {
	for name, rec := range readRecordedTables(t) {
		t.Run(name, func(t *testing.T) {
			gr := rec.groupResource()
			p, ok := PrinterFor(gr.Group, gr.Resource)
			if !ok {
				t.Fatalf("no printer for %s", gr)
			}
			if !reflect.DeepEqual(p.Columns, rec.Table.ColumnDefinitions) {
				got, _ := json.Marshal(p.Columns)
				want, _ := json.Marshal(rec.Table.ColumnDefinitions)
				t.Errorf("columns\n%s\nwant\n%s", got, want)
			}
			now, err := http.ParseTime(rec.Date)
			if err != nil {
				t.Fatal(err)
			}
			if len(rec.Table.Rows) == 0 {
				t.Fatal("no rows recorded")
			}
			for _, row := range rec.Table.Rows {
				got := p.Row(row.Object, now)
				if len(got.Cells) != len(p.Columns) {
					t.Errorf("%d cells for %d columns", len(got.Cells), len(p.Columns))
				}
				if g, w := cellsJSON(t, got.Cells), cellsJSON(t, row.Cells); g != w {
					t.Errorf("cells %s\nwant  %s", g, w)
				}
				if !reflect.DeepEqual(got.Conditions, row.Conditions) {
					t.Errorf("conditions %v, want %v", got.Conditions, row.Conditions)
				}
			}
		})
	}
}

// cellsJSON is cells as JSON, decoded and encoded again so that both sides are written alike
// (a recorded string and an int64 cell differ: "3" is not 3).
func cellsJSON[T any](t *testing.T, cells []T) string {
	t.Helper()
	b, err := json.Marshal(cells)
	if err != nil {
		t.Fatal(err)
	}
	var v []any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(v)
	return string(b)
}

// TestPrinterTableIsRecorded: the resources of builtinPrinters and the recorded Tables are the same
// set, so no printer goes unchecked and no recording is left without its printer.
func TestPrinterTableIsRecorded(t *testing.T) {
	recorded := map[schema.GroupResource]string{}
	for name, rec := range readRecordedTables(t) {
		recorded[rec.groupResource()] = "testdata/tables/" + name + ".json"
	}
	// Recorded with the other golden answers of the core resources (TestOracleBodies).
	for _, r := range []string{"pods", "nodes", "namespaces", "configmaps", "services"} {
		f := "testdata/oracle/table-" + r + ".http"
		if _, err := os.Stat(f); err != nil {
			f = "testdata/oracle/table-" + r + "-fid.http"
		}
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%s: no recorded Table", r)
		}
		recorded[schema.GroupResource{Resource: r}] = f
	}
	for gr := range builtinPrinters {
		if _, ok := recorded[gr]; !ok {
			t.Errorf("printer of %s has no recorded Table", gr)
		}
	}
	for gr, f := range recorded {
		if _, ok := builtinPrinters[gr]; !ok {
			t.Errorf("%s (%s) has no printer", gr, f)
		}
	}
}
