package wire

import "testing"

// TestObjectEncodingMemo checks that ObjectEncoding's remembered answers are objectEncoding's:
// each header twice (the second answer comes from the memo), with and without protobuf, and more
// headers than the memo has slots, so that answers replace each other.
func TestObjectEncodingMemo(t *testing.T) {
	headers := []string{"", " ", "application/json", "application/yaml", MediaProtobuf, MediaProtobuf + ", */*",
		"application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io, application/json", "*/*", "application/*",
		"text/plain", "application/json;q=0, application/yaml", "application/vnd.kubernetes.protobuf;q=0.5, application/json;q=0.9",
		"application/json;as=Table;g=meta.k8s.io;v=v1", "image/png, */*;q=0.1"}
	for i := range 40 {
		headers = append(headers, "application/x-"+string(rune('a'+i%26))+string(rune('a'+i/26)))
	}
	for round := range 2 {
		for _, h := range headers {
			for _, protobuf := range []bool{true, false} {
				enc, ok := ObjectEncoding(h, protobuf)
				wantEnc, wantOK := objectEncoding(h, protobuf)
				if enc != wantEnc || ok != wantOK {
					t.Fatalf("round %d: ObjectEncoding(%q, %v) = %v, %v; want %v, %v", round, h, protobuf, enc, ok, wantEnc, wantOK)
				}
			}
		}
	}
	if enc, ok := ObjectEncoding(MediaProtobuf+", */*", false); enc != JSON || !ok {
		t.Fatalf("a kind without protobuf got %v, %v after one with it", enc, ok)
	}
}
