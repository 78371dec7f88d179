package fake_test

import (
	"context"
	"testing"

	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/watchcache/watchcache/fake"
)

// TestCSIDriverTokenWarning: the CSI driver strategy's warning about token requests without
// serviceAccountTokenInSecrets comes with a create, and with an update only when the update
// changes the token requests (its WarningsOnUpdate), not with every update of such a driver.
func TestCSIDriverTokenWarning(t *testing.T) {
	srv := fake.NewTest(t, fake.Options{})
	warnings := &warningsSeen{}
	cfg := srv.Config()
	cfg.WarningHandler = warnings
	drivers := kubernetes.NewForConfigOrDie(cfg).StorageV1().CSIDrivers()
	ctx := context.Background()
	d, err := drivers.Create(ctx, &storagev1.CSIDriver{ObjectMeta: metav1.ObjectMeta{Name: "csi.example.com"},
		Spec: storagev1.CSIDriverSpec{TokenRequests: []storagev1.TokenRequest{{Audience: "a"}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := warnings.take(); len(got) != 1 {
		t.Fatalf("create: warnings %q, want the token requests' one", got)
	}
	d.Labels = map[string]string{"l": "1"}
	if d, err = drivers.Update(ctx, d, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := warnings.take(); len(got) != 0 {
		t.Fatalf("update of a label: warnings %q, want none", got)
	}
	d.Spec.TokenRequests = append(d.Spec.TokenRequests, storagev1.TokenRequest{Audience: "b"})
	if _, err = drivers.Update(ctx, d, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := warnings.take(); len(got) != 1 {
		t.Fatalf("update of the token requests: warnings %q, want the token requests' one", got)
	}
}
