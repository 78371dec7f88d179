package fake

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"
)

// TestValidateResizeKeepsClaims checks that a resize of a container with resource claims compares
// the claims with themselves: changing only its cpu is valid, changing its claims is not.
func TestValidateResizeKeepsClaims(t *testing.T) {
	pod := func(cpu string, claims ...string) *corev1.Pod {
		var rc []corev1.ResourceClaim
		for _, c := range claims {
			rc = append(rc, corev1.ResourceClaim{Name: c})
		}
		p := &corev1.Pod{Spec: corev1.PodSpec{
			ResourceClaims: []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimName: ptr.To("x")}, {Name: "fpga", ResourceClaimName: ptr.To("y")}},
			Containers: []corev1.Container{{Name: "c", Image: "busybox", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}, Claims: rc}}},
		}}
		applyDefaults(p)
		return p
	}
	if errs := validateResize(pod("150m", "gpu"), pod("100m", "gpu")); len(errs) != 0 {
		t.Errorf("cpu resize of a container with a claim: %v", errs)
	}
	if errs := validateResize(pod("150m", "fpga"), pod("100m", "gpu")); len(errs) == 0 {
		t.Error("a resize that changes a container's claims is valid")
	}
}
