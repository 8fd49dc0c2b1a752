package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ktopo/ktopo/internal/testkit/testvectors"

	"github.com/charmbracelet/x/exp/golden"
)

// runCLI runs ktopo in-process and returns its exit status and output.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errw bytes.Buffer
	code := run(args, strings.NewReader(""), &out, &errw)
	return code, out.String(), errw.String()
}

type vectorCase struct {
	ID      string `json:"id"`
	Brokers []struct {
		ID   int     `json:"id"`
		Rack *string `json:"rack"`
	} `json:"brokers"`
	RackAware          bool             `json:"rackAware"`
	Partitions         int              `json:"partitions"`
	ReplicationFactor  int              `json:"replicationFactor"`
	FixedStartIndex    int              `json:"fixedStartIndex"`
	StartPartitionID   int              `json:"startPartitionId"`
	Expected           map[string][]int `json:"expected"`
	ErrorMessage       string           `json:"errorMessage"`
	ExistingAssignment json.RawMessage  `json:"existingAssignment"`
}

func planArgs(c vectorCase) []string {
	var ids []string
	for _, b := range c.Brokers {
		if b.Rack != nil {
			ids = append(ids, fmt.Sprintf("%d:%s", b.ID, *b.Rack))
		} else {
			ids = append(ids, fmt.Sprint(b.ID))
		}
	}
	args := []string{"plan", "--brokers", strings.Join(ids, ","),
		"--partitions", fmt.Sprint(c.Partitions), "--replication-factor", fmt.Sprint(c.ReplicationFactor),
		"--start-index", fmt.Sprint(c.FixedStartIndex), "--start-partition", fmt.Sprint(c.StartPartitionID)}
	if !c.RackAware {
		args = append(args, "--disable-rack-aware")
	}
	return args
}

// TestPlanReproducesKafkaCases runs every literal case and every error case
// of Kafka's test vectors through the command line.
func TestPlanReproducesKafkaCases(t *testing.T) {
	var v struct{ Cases []vectorCase }
	if err := json.Unmarshal(testvectors.AssignmentCases, &v); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, c := range v.Cases {
		if c.ExistingAssignment != nil || (c.Expected == nil && c.ErrorMessage == "") {
			continue
		}
		checked++
		t.Run(c.ID, func(t *testing.T) {
			code, out, errOut := runCLI(t, append(planArgs(c), "--output", "json")...)
			if c.ErrorMessage != "" {
				if code != 1 || errOut != "Error: "+c.ErrorMessage+"\n" || out != "" {
					t.Fatalf("exit %d, stdout %q, stderr %q; want exit 1 and %q", code, out, errOut, c.ErrorMessage)
				}
				return
			}
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var got struct {
				Assignment map[string][]int `json:"assignment"`
			}
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			gj, _ := json.Marshal(got.Assignment)
			wj, _ := json.Marshal(c.Expected)
			if string(gj) != string(wj) {
				t.Fatalf("assignment %s, want %s", gj, wj)
			}
		})
	}
	if checked < 10 {
		t.Fatalf("only %d literal/error cases found", checked)
	}
}

func TestPlanErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--brokers", "", "--partitions", "3", "--replication-factor", "1"}, "Replication factor: 1 larger than available brokers: 0."},
		{[]string{"--brokers", "0,1,2", "--partitions", "3", "--replication-factor", "4"}, "Replication factor: 4 larger than available brokers: 3."},
		{[]string{"--brokers", "0:a,1", "--partitions", "3", "--replication-factor", "1"}, "Not all brokers have rack information for replica rack aware assignment."},
		{[]string{"--brokers", "0,1", "--partitions", "0", "--replication-factor", "1"}, "Number of partitions must be larger than 0."},
		{[]string{"--brokers", "0,1", "--partitions", "-2", "--replication-factor", "1"}, "Number of partitions must be larger than 0."},
		{[]string{"--brokers", "0,1", "--partitions", "2", "--replication-factor", "0"}, "Replication factor must be larger than 0."},
		{[]string{"--brokers", "0,1", "--replication-factor", "1"}, `Missing required argument "[partitions]"`},
		{[]string{"--brokers", "0,1", "--partitions", "1"}, `Missing required argument "[replication-factor]"`},
		{[]string{"--partitions", "1", "--replication-factor", "1"}, `Missing required argument "[brokers]" (or give --zookeeper or --bootstrap-server to use a cluster's brokers)`},
		{[]string{"--brokers", "0,x", "--partitions", "1", "--replication-factor", "1"}, `invalid --brokers entry "x": want ID or ID:RACK with an integer ID`},
		{[]string{"--brokers", "0,,1", "--partitions", "1", "--replication-factor", "1"}, `invalid --brokers entry "": want ID or ID:RACK with an integer ID`},
		{[]string{"--brokers", "0:,1", "--partitions", "1", "--replication-factor", "1"}, `invalid --brokers entry "0:": empty rack name`},
		{[]string{"--brokers", "1,1", "--partitions", "1", "--replication-factor", "1"}, `invalid --brokers: broker 1 is listed twice`},
		{[]string{"--brokers", "1", "--partitions", "1", "--replication-factor", "1", "--output", "yaml"}, `invalid --output "yaml": want text or json`},
		{[]string{"--brokers", "1", "--partitions", "1", "--replication-factor", "1", "--replica-shift", "2"}, `--replica-shift needs --start-index`},
	} {
		code, out, errOut := runCLI(t, append([]string{"plan"}, tc.args...)...)
		if code != 1 || errOut != "Error: "+tc.want+"\n" || out != "" {
			t.Errorf("%v: exit %d stdout %q stderr %q; want %q", tc.args, code, out, errOut, tc.want)
		}
	}
}

// TestPlanText pins the text layout (rack groups, leader marks, totals).
func TestPlanText(t *testing.T) {
	code, out, errOut := runCLI(t, "plan", "--brokers", "0:rackA,1:rackB,2:rackA,3:rackB",
		"--partitions", "12", "--replication-factor", "2", "--start-index", "1", "--replica-shift", "3")
	if code != 0 {
		t.Fatal(errOut)
	}
	golden.RequireEqual(t, out)
}

// TestPlanTextFits80Columns: 12 brokers with four-digit ids in three racks
// still fit a classic terminal.
func TestPlanTextFits80Columns(t *testing.T) {
	var bs []string
	for i := range 12 {
		bs = append(bs, fmt.Sprintf("%d:us-east-1%c", 1001+i, 'a'+i%3))
	}
	code, out, errOut := runCLI(t, "plan", "--brokers", strings.Join(bs, ","), "--partitions", "24",
		"--replication-factor", "3", "--start-index", "0")
	if code != 0 {
		t.Fatal(errOut)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "L = leader") || strings.HasPrefix(line, "Warning") || strings.HasPrefix(line, "Start index") {
			continue // prose wraps in the terminal
		}
		if n := utf8.RuneCountInString(line); n > 80 {
			t.Errorf("line of %d columns: %q", n, line)
		}
	}
	if strings.Contains(out, "\x1b[") {
		t.Error("ANSI codes in output that is not a terminal")
	}
	if !strings.Contains(out, "1012") || strings.Count(out, "\npartition ") != 1 {
		t.Errorf("want one block with all brokers:\n%s", out)
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := runCLI(t, "version")
	if code != 0 || out != "ktopo dev\n" {
		t.Fatalf("exit %d, %q", code, out)
	}
}
