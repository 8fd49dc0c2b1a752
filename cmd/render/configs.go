package render

import (
	"io"
	"strconv"
	"strings"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
)

// WriteConfigsDescribe prints Kafka 4.x's kafka-configs --bootstrap-server
// --describe: per entity a heading ("Dynamic configs for topic orders
// are:", "Default configs for brokers in the cluster are:"), then each
// config as "  name=value sensitive=false synonyms={SOURCE:name=value, …}",
// a value Kafka did not send (a sensitive one) as null, as Java prints it.
func WriteConfigsDescribe(w io.Writer, entityType string, es []clusterops.DescribedEntity) error {
	var b strings.Builder
	singular := strings.TrimSuffix(entityType, "s")
	for _, e := range es {
		if e.Name == cluster.BrokerDefaultEntity {
			b.WriteString("Default configs for " + entityType + " in the cluster are:\n")
		} else {
			b.WriteString("Dynamic configs for " + singular + " " + e.Name + " are:\n")
		}
		for _, c := range e.Configs {
			b.WriteString("  " + c.Name + "=" + javaString(c.Value) + " sensitive=" + strconv.FormatBool(c.Sensitive) + " synonyms={")
			for i, s := range c.Synonyms {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(s.Source + ":" + s.Name + "=" + javaString(s.Value))
			}
			b.WriteString("}\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// javaString is a nullable string as Java's string concatenation prints
// it.
func javaString(s *string) string {
	if s == nil {
		return "null"
	}
	return *s
}
