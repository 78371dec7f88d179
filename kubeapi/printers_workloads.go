package kubeapi

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/duration"
)

// Printers of the workload kinds (apps/v1, batch/v1 and the core kinds that hold a pod template),
// written from the columns and cells kube-apiserver 1.37.2 prints for them
// (reference/observed-tables.md, kubeapi/testdata/tables/).

// Wide columns shared by the kinds that run pods.
var (
	containersColumn = metav1.TableColumnDefinition{Name: "Containers", Type: "string", Priority: 1, Description: "Names of each container in the template."}
	imagesColumn     = metav1.TableColumnDefinition{Name: "Images", Type: "string", Priority: 1, Description: "Images referenced by each container in the template."}
)

// containerCells returns the comma-separated names and images of a pod spec's containers.
func containerCells(podSpec gjson.Result) (names, images string) {
	var n, i strings.Builder
	for k, c := range podSpec.Get("containers").Array() {
		if k > 0 {
			n.WriteByte(',')
			i.WriteByte(',')
		}
		n.WriteString(c.Get("name").String())
		i.WriteString(c.Get("image").String())
	}
	return n.String(), i.String()
}

// labelSelector renders a metav1.LabelSelector as kubectl does ("app=web,tier notin (a,b)"), or
// "<none>" when it selects nothing or everything; "<error>" when it does not parse.
func labelSelector(sel gjson.Result) string {
	if !present(sel) {
		return metav1.FormatLabelSelector(nil)
	}
	var ls metav1.LabelSelector
	if err := json.Unmarshal([]byte(sel.Raw), &ls); err != nil {
		return "<error>"
	}
	return metav1.FormatLabelSelector(&ls)
}

// selectorString is a Deployment's selector: the selector's string form, "" when it is empty,
// "<invalid>" when it does not parse.
func selectorString(sel gjson.Result) string {
	var ls *metav1.LabelSelector
	if present(sel) {
		ls = &metav1.LabelSelector{}
		if err := json.Unmarshal([]byte(sel.Raw), ls); err != nil {
			return "<invalid>"
		}
	}
	s, err := metav1.LabelSelectorAsSelector(ls)
	if err != nil {
		return "<invalid>"
	}
	return s.String()
}

func deploymentPrinter() *Printer {
	status := appsv1.DeploymentStatus{}.SwaggerDoc()
	return &Printer{
		Columns: []metav1.TableColumnDefinition{
			nameColumn,
			{Name: "Ready", Type: "string", Description: "Number of the pod with ready state"},
			{Name: "Up-to-date", Type: "string", Description: status["updatedReplicas"]},
			{Name: "Available", Type: "string", Description: status["availableReplicas"]},
			ageColumn, containersColumn, imagesColumn,
			{Name: "Selector", Type: "string", Priority: 1, Description: appsv1.DeploymentSpec{}.SwaggerDoc()["selector"]},
		},
		Row: func(obj []byte, now time.Time) metav1.TableRow {
			meta, spec, status := sections(obj)
			names, images := containerCells(spec.Get("template.spec"))
			return metav1.TableRow{Cells: []any{
				meta.Get("name").String(),
				fmt.Sprintf("%d/%d", status.Get("readyReplicas").Int(), spec.Get("replicas").Int()),
				status.Get("updatedReplicas").Int(), status.Get("availableReplicas").Int(),
				age(meta.Get("creationTimestamp"), now), names, images, selectorString(spec.Get("selector")),
			}}
		},
	}
}

// replicasPrinter prints ReplicaSets (label selector) and ReplicationControllers (map selector):
// Desired, Current, Ready.
func replicasPrinter(specDoc, statusDoc map[string]string, mapSelector bool) *Printer {
	return &Printer{
		Columns: []metav1.TableColumnDefinition{
			nameColumn,
			{Name: "Desired", Type: "integer", Description: specDoc["replicas"]},
			{Name: "Current", Type: "integer", Description: statusDoc["replicas"]},
			{Name: "Ready", Type: "integer", Description: statusDoc["readyReplicas"]},
			ageColumn, containersColumn, imagesColumn,
			{Name: "Selector", Type: "string", Priority: 1, Description: specDoc["selector"]},
		},
		Row: func(obj []byte, now time.Time) metav1.TableRow {
			meta, spec, status := sections(obj)
			names, images := containerCells(spec.Get("template.spec"))
			sel := labelSelector(spec.Get("selector"))
			if mapSelector {
				sel = formatLabels(spec.Get("selector"))
			}
			return metav1.TableRow{Cells: []any{
				meta.Get("name").String(), spec.Get("replicas").Int(), status.Get("replicas").Int(), status.Get("readyReplicas").Int(),
				age(meta.Get("creationTimestamp"), now), names, images, sel,
			}}
		},
	}
}

func replicaSetPrinter() *Printer {
	return replicasPrinter(appsv1.ReplicaSetSpec{}.SwaggerDoc(), appsv1.ReplicaSetStatus{}.SwaggerDoc(), false)
}

func replicationControllerPrinter() *Printer {
	return replicasPrinter(corev1.ReplicationControllerSpec{}.SwaggerDoc(), corev1.ReplicationControllerStatus{}.SwaggerDoc(), true)
}

func statefulSetPrinter() *Printer {
	return &Printer{
		Columns: []metav1.TableColumnDefinition{
			nameColumn,
			{Name: "Ready", Type: "string", Description: "Number of the pod with ready state"},
			ageColumn, containersColumn, imagesColumn,
		},
		Row: func(obj []byte, now time.Time) metav1.TableRow {
			meta, spec, status := sections(obj)
			names, images := containerCells(spec.Get("template.spec"))
			return metav1.TableRow{Cells: []any{
				meta.Get("name").String(), fmt.Sprintf("%d/%d", status.Get("readyReplicas").Int(), spec.Get("replicas").Int()),
				age(meta.Get("creationTimestamp"), now), names, images,
			}}
		},
	}
}

func daemonSetPrinter() *Printer {
	st := appsv1.DaemonSetStatus{}.SwaggerDoc()
	return &Printer{
		Columns: []metav1.TableColumnDefinition{
			nameColumn,
			{Name: "Desired", Type: "integer", Description: st["desiredNumberScheduled"]},
			{Name: "Current", Type: "integer", Description: st["currentNumberScheduled"]},
			{Name: "Ready", Type: "integer", Description: st["numberReady"]},
			{Name: "Up-to-date", Type: "integer", Description: st["updatedNumberScheduled"]},
			{Name: "Available", Type: "integer", Description: st["numberAvailable"]},
			{Name: "Node Selector", Type: "string", Description: corev1.PodSpec{}.SwaggerDoc()["nodeSelector"]},
			ageColumn, containersColumn, imagesColumn,
			{Name: "Selector", Type: "string", Priority: 1, Description: appsv1.DaemonSetSpec{}.SwaggerDoc()["selector"]},
		},
		Row: func(obj []byte, now time.Time) metav1.TableRow {
			meta, spec, status := sections(obj)
			pod := spec.Get("template.spec")
			names, images := containerCells(pod)
			return metav1.TableRow{Cells: []any{
				meta.Get("name").String(),
				status.Get("desiredNumberScheduled").Int(), status.Get("currentNumberScheduled").Int(), status.Get("numberReady").Int(),
				status.Get("updatedNumberScheduled").Int(), status.Get("numberAvailable").Int(),
				formatLabels(pod.Get("nodeSelector")), age(meta.Get("creationTimestamp"), now),
				names, images, labelSelector(spec.Get("selector")),
			}}
		},
	}
}

func controllerRevisionPrinter() *Printer {
	return &Printer{
		Columns: []metav1.TableColumnDefinition{
			nameColumn,
			{Name: "Controller", Type: "string", Description: "Controller of the object"},
			{Name: "Revision", Type: "string", Description: appsv1.ControllerRevision{}.SwaggerDoc()["revision"]},
			ageColumn,
		},
		Row: func(obj []byte, now time.Time) metav1.TableRow {
			meta, revision := metaAnd(obj, "revision")
			controller := "<none>"
			for _, ref := range meta.Get("ownerReferences").Array() {
				if !ref.Get("controller").Bool() {
					continue
				}
				name := ref.Get("name").String()
				controller = name
				if gv, err := schema.ParseGroupVersion(ref.Get("apiVersion").String()); err == nil {
					if gk := (schema.GroupKind{Group: gv.Group, Kind: ref.Get("kind").String()}); !gk.Empty() {
						controller = strings.ToLower(gk.String()) + "/" + name
					}
				}
				break
			}
			return metav1.TableRow{Cells: []any{meta.Get("name").String(), controller, revision.Int(), age(meta.Get("creationTimestamp"), now)}}
		},
	}
}

func jobPrinter() *Printer {
	return &Printer{
		Columns: []metav1.TableColumnDefinition{
			nameColumn,
			{Name: "Status", Type: "string", Description: "Status of the job."},
			{Name: "Completions", Type: "string", Description: batchv1.JobStatus{}.SwaggerDoc()["succeeded"]},
			{Name: "Duration", Type: "string", Description: "Time required to complete the job."},
			ageColumn, containersColumn, imagesColumn,
			{Name: "Selector", Type: "string", Priority: 1, Description: batchv1.JobSpec{}.SwaggerDoc()["selector"]},
		},
		Row: jobRow,
	}
}

// jobRow prints a Job: its state from the first condition of each type, in the order Complete,
// Failed, (deleting), Suspended, FailureTarget, SuccessCriteriaMet, else Running.
func jobRow(obj []byte, now time.Time) metav1.TableRow {
	meta, spec, status := sections(obj)
	succeeded := status.Get("succeeded").Int()
	var completions string
	switch c, p := spec.Get("completions"), spec.Get("parallelism").Int(); {
	case present(c):
		completions = fmt.Sprintf("%d/%d", succeeded, c.Int())
	case p > 1:
		completions = fmt.Sprintf("%d/1 of %d", succeeded, p)
	default:
		completions = fmt.Sprintf("%d/1", succeeded)
	}
	var jobDuration string
	start, started := timestamp(status.Get("startTime"))
	end, ended := timestamp(status.Get("completionTime"))
	switch {
	case !started:
	case !ended:
		jobDuration = duration.HumanDuration(now.Sub(start))
	default:
		jobDuration = duration.HumanDuration(end.Sub(start))
	}
	conds := status.Get("conditions").Array()
	state := "Running"
	switch {
	case hasCondition(conds, "Complete"):
		state = "Complete"
	case hasCondition(conds, "Failed"):
		state = "Failed"
	case present(meta.Get("deletionTimestamp")):
		state = "Terminating"
	case hasCondition(conds, "Suspended"):
		state = "Suspended"
	case hasCondition(conds, "FailureTarget"):
		state = "FailureTarget"
	case hasCondition(conds, "SuccessCriteriaMet"):
		state = "SuccessCriteriaMet"
	}
	names, images := containerCells(spec.Get("template.spec"))
	return metav1.TableRow{Cells: []any{
		meta.Get("name").String(), state, completions, jobDuration, age(meta.Get("creationTimestamp"), now),
		names, images, labelSelector(spec.Get("selector")),
	}}
}

func cronJobPrinter() *Printer {
	spec, status := batchv1.CronJobSpec{}.SwaggerDoc(), batchv1.CronJobStatus{}.SwaggerDoc()
	return &Printer{
		Columns: []metav1.TableColumnDefinition{
			nameColumn,
			{Name: "Schedule", Type: "string", Description: spec["schedule"]},
			{Name: "Timezone", Type: "string", Description: spec["timeZone"]},
			{Name: "Suspend", Type: "boolean", Description: spec["suspend"]},
			{Name: "Active", Type: "integer", Description: status["active"]},
			{Name: "Last Schedule", Type: "string", Description: status["lastScheduleTime"]},
			ageColumn, containersColumn, imagesColumn,
			{Name: "Selector", Type: "string", Priority: 1, Description: batchv1.JobSpec{}.SwaggerDoc()["selector"]},
		},
		Row: func(obj []byte, now time.Time) metav1.TableRow {
			meta, spec, status := sections(obj)
			last := "<none>"
			if ts := status.Get("lastScheduleTime"); present(ts) {
				last = age(ts, now)
			}
			tz := "<none>"
			if z := spec.Get("timeZone"); present(z) {
				tz = z.String()
			}
			job := spec.Get("jobTemplate.spec")
			names, images := containerCells(job.Get("template.spec"))
			return metav1.TableRow{Cells: []any{
				meta.Get("name").String(), spec.Get("schedule").String(), tz, boolPtr(spec.Get("suspend")),
				int64(len(status.Get("active").Array())), last, age(meta.Get("creationTimestamp"), now),
				names, images, labelSelector(job.Get("selector")),
			}}
		},
	}
}

// boolPtr prints an optional boolean: "True", "False" or "<unset>".
func boolPtr(v gjson.Result) string {
	switch {
	case !present(v):
		return "<unset>"
	case v.Bool():
		return "True"
	}
	return "False"
}

func podTemplatePrinter() *Printer {
	return &Printer{
		Columns: []metav1.TableColumnDefinition{
			nameColumn,
			{Name: "Containers", Type: "string", Description: "Names of each container in the template."},
			{Name: "Images", Type: "string", Description: "Images referenced by each container in the template."},
			{Name: "Pod Labels", Type: "string", Description: "The labels for the pod template."},
		},
		Row: func(obj []byte, _ time.Time) metav1.TableRow {
			meta, tpl := metaAnd(obj, "template")
			names, images := containerCells(tpl.Get("spec"))
			return metav1.TableRow{Cells: []any{meta.Get("name").String(), names, images, formatLabels(tpl.Get("metadata.labels"))}}
		},
	}
}

// intOrString prints an IntOrString as its String method does, or "N/A" when it is not set.
func intOrString(v gjson.Result) string {
	switch v.Type {
	case gjson.Number:
		return strconv.FormatInt(v.Int(), 10)
	case gjson.String:
		return v.Str
	}
	return "N/A"
}
