package cell

import "testing"

func TestThousands(t *testing.T) {
	if Thousands(1234567) != "1,234,567" || Thousands(12) != "12" {
		t.Fatal(Thousands(1234567))
	}
}
