package kubeapi

import (
	"bufio"
	"encoding/json"
	"fmt"
	"time"

	"github.com/tidwall/gjson"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"
)

// Printer renders the objects of one resource as rows of a meta.k8s.io Table, the server-side
// printing `kubectl get` asks for. A Printer is immutable once registered and used concurrently.
type Printer struct {
	// Columns are the column definitions in cell order. Columns with Priority > 0 are shown by
	// `kubectl get -o wide` only; the server always sends them (the apiserver prints wide).
	Columns []metav1.TableColumnDefinition
	// Row returns the cells of one object (one per column) and the row's conditions; its Object
	// is ignored. obj is the stored JSON (read it, e.g. with gjson; never modify it); now is the
	// time ages are measured against.
	Row func(obj []byte, now time.Time) metav1.TableRow
	// ListRow, when set, returns the row function of one list's objects (a page), for a printer
	// whose rows depend on the whole list: a StorageClass list marks its effective default
	// class. A get and a watch event are printed with Row. nil: every object is printed with Row.
	ListRow func(items [][]byte) func(obj []byte, now time.Time) metav1.TableRow
	// Order, when set, returns a list's objects in the order their rows are printed, for a kind
	// the apiserver sorts (FlowSchemas by matching precedence); it must not modify items. nil:
	// the list's order.
	Order func(items [][]byte) [][]byte
}

var objectMetaDoc = metav1.ObjectMeta{}.SwaggerDoc()

// nameColumn and ageColumn are the apiserver printers' first and age columns.
var (
	nameColumn = metav1.TableColumnDefinition{Name: "Name", Type: "string", Format: "name", Description: objectMetaDoc["name"]}
	ageColumn  = metav1.TableColumnDefinition{Name: "Age", Type: "string", Description: objectMetaDoc["creationTimestamp"]}
)

// DefaultPrinter prints NAME and AGE, the columns of a custom resource without
// additionalPrinterColumns (and what this server shows for kinds without a printer of their own).
func DefaultPrinter() *Printer {
	return &Printer{
		Columns: []metav1.TableColumnDefinition{nameColumn, ageColumn},
		Row: func(obj []byte, now time.Time) metav1.TableRow {
			m := gjson.GetBytes(obj, "metadata")
			return metav1.TableRow{Cells: []any{m.Get("name").String(), age(m.Get("creationTimestamp"), now)}}
		},
	}
}

// age renders a creationTimestamp as kubectl does (translateTimestampSince: "4s", "5m", "3h",
// "2d"), or "<unknown>" when it is missing or unparseable.
func age(ts gjson.Result, now time.Time) string {
	t, ok := timestamp(ts)
	if !ok {
		return "<unknown>"
	}
	return duration.HumanDuration(now.Sub(t))
}

// timestamp parses an RFC 3339 metav1.Time.
func timestamp(ts gjson.Result) (time.Time, bool) {
	if ts.Type != gjson.String || ts.Str == "" {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339, ts.Str)
	return t, err == nil
}

// Values of the includeObject parameter (metav1.IncludeObjectPolicy).
const (
	includeNone     = "None"
	includeMetadata = "Metadata"
	includeObject   = "Object"
)

// table writes a Table response: a head with the list metadata and the column definitions, then
// one row per object. Rows are written as they come, like list items.
type table struct {
	res     *resource
	version string // "v1" or "v1beta1" of meta.k8s.io
	include string // includeObject: "" (= Metadata), None, Metadata, Object
	now     time.Time
	rows    int
	// row prints one object: the Printer's Row, or the function its ListRow returned for a list.
	row func(obj []byte, now time.Time) metav1.TableRow
}

// forList prepares the rows of a list's items: it returns them in the order they are printed
// (the Printer's Order) and prints them with the Printer's ListRow, when it has these.
func (t *table) forList(items [][]byte) [][]byte {
	p := t.res.info.Printer
	if p.ListRow != nil {
		t.row = p.ListRow(items)
	}
	if p.Order != nil {
		return p.Order(items)
	}
	return items
}

// checkInclude validates the includeObject parameter as the apiserver's asTable does.
func checkInclude(v string) error {
	switch v {
	case "", includeNone, includeMetadata, includeObject:
		return nil
	}
	return fmt.Errorf("unrecognized includeObject value: %q", v)
}

// writeHead writes everything before the first row. headers=false omits the column definitions
// (`"columnDefinitions":null`), as the apiserver does for every watch event after the first.
func (t *table) writeHead(bw *bufio.Writer, meta []byte, headers bool) {
	bw.WriteString(`{"kind":"Table","apiVersion":"meta.k8s.io/`)
	bw.WriteString(t.version)
	bw.WriteString(`","metadata":`)
	bw.Write(meta)
	bw.WriteString(`,"columnDefinitions":`)
	if headers {
		cols, _ := json.Marshal(t.res.info.Printer.Columns) // plain strings and ints: cannot fail
		bw.Write(cols)
	} else {
		bw.WriteString("null")
	}
	bw.WriteString(`,"rows":[`)
}

// writeRow writes the row of one object.
func (t *table) writeRow(bw *bufio.Writer, obj []byte) {
	if t.rows > 0 {
		bw.WriteByte(',')
	}
	t.rows++
	print := t.row
	if print == nil {
		print = t.res.info.Printer.Row
	}
	row := print(obj, t.now)
	cells, err := json.Marshal(row.Cells)
	if err != nil {
		cells = []byte("[]")
	}
	bw.WriteString(`{"cells":`)
	bw.Write(cells)
	if len(row.Conditions) > 0 {
		if conds, err := json.Marshal(row.Conditions); err == nil {
			bw.WriteString(`,"conditions":`)
			bw.Write(conds)
		}
	}
	switch t.include {
	case includeNone:
		bw.WriteString(`,"object":null`) // testdata/oracle/table-configmaps-none.http
	case includeObject:
		bw.WriteString(`,"object":`)
		bw.Write(t.res.withKind(obj))
	default:
		// includeObject=Metadata, kubectl's default: the object's metadata as a
		// PartialObjectMetadata (kubectl reads the namespace for `-A` from it).
		bw.WriteString(`,"object":`)
		writePartial(bw, t.version, obj)
	}
	bw.WriteByte('}')
}

// writeTail closes the rows and the table.
func (t *table) writeTail(bw *bufio.Writer) {
	bw.WriteString("]}")
}
