package cell

import "testing"

func TestCount(t *testing.T) {
	if Count(1234567) != "1,234,567" || Count(12) != "12" {
		t.Fatal(Count(1234567))
	}
}
