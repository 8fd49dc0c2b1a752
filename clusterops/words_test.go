package clusterops

import (
	"reflect"
	"testing"
)

// TestWordsComplete: each backend words every write (a field one of them
// lacks would show an empty line on that kind of cluster).
func TestWordsComplete(t *testing.T) {
	for name, w := range map[string]Words{"ZooKeeperWords": ZooKeeperWords, "KafkaWords": KafkaWords} {
		v := reflect.ValueOf(w)
		for i := range v.NumField() {
			f, ft := v.Field(i), v.Type().Field(i)
			switch f.Kind() {
			case reflect.String, reflect.Slice, reflect.Func:
				if f.IsZero() || (f.Kind() != reflect.Func && f.Len() == 0) {
					t.Errorf("%s.%s is not set", name, ft.Name)
				}
			}
		}
	}
}
