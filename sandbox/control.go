package sandbox

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// controlHelp lists the control commands.
const controlHelp = `commands:
  kill <id> [<id>…]       crash broker <id> (its session closes at once); several
                          ids crash together, as a lost rack (one broker change)
  restart <id>            start broker <id> again with a new session
  elect-preferred [topic] preferred leader election (all topics without a name)
  move-controller         the controller resigns; another broker takes over
  status                  controller, brokers and topics as ZooKeeper shows them
  pace <duration>         delay before each controller step, e.g. 500ms (0 = none)
  migrate                 the next step of a ZooKeeper to KRaft migration, as Kafka
                          3.9.2 writes it: KRaft controllers ready, then their
                          takeover and dual write, then the brokers rolled to
                          KRaft, then finalized
  migrate freeze|thaw     stop (resume) the KRaft controller's sync into ZooKeeper
  help                    this list`

// Control reads control commands from in, one per line, runs each on c
// and answers on out: one or more lines per command, errors as lines
// starting with "error: ". Blank lines and lines starting with '#' are
// skipped. The end of in only stops reading (the cluster keeps running);
// Control returns the read error, if any.
func Control(c *Cluster, in io.Reader, out io.Writer) error {
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		reply := RunCommand(c, line)
		if _, err := io.WriteString(out, reply+"\n"); err != nil {
			return err
		}
	}
	return sc.Err()
}

// RunCommand runs one control command and returns its answer (without a
// trailing newline).
func RunCommand(c *Cluster, line string) string {
	f := strings.Fields(line)
	if len(f) == 0 {
		return "error: empty command (try \"help\")"
	}
	cmd, args := f[0], f[1:]
	arity := func(min, max int) error {
		if len(args) < min || len(args) > max {
			if min == max {
				return fmt.Errorf("%s takes %d argument(s), got %d", cmd, min, len(args))
			}
			return fmt.Errorf("%s takes %d to %d arguments, got %d", cmd, min, max, len(args))
		}
		return nil
	}
	brokerID := func() (int, error) {
		if err := arity(1, 1); err != nil {
			return 0, err
		}
		id, err := strconv.Atoi(args[0])
		if err != nil {
			return 0, fmt.Errorf("%s: broker id %q is not a number", cmd, args[0])
		}
		return id, nil
	}
	answer := func(msg string, err error) string {
		if err != nil {
			return "error: " + strings.TrimPrefix(err.Error(), "sandbox: ")
		}
		return msg
	}
	switch cmd {
	case "help":
		return controlHelp
	case "kill":
		if len(args) > 1 {
			var ids []int
			for _, a := range args {
				id, err := strconv.Atoi(a)
				if err != nil {
					return answer("", fmt.Errorf("%s: broker id %q is not a number", cmd, a))
				}
				ids = append(ids, id)
			}
			return answer(fmt.Sprintf("brokers %s killed together", strings.Join(args, ", ")), c.KillTogether(ids...))
		}
		id, err := brokerID()
		if err != nil {
			return answer("", err)
		}
		return answer(fmt.Sprintf("broker %d killed", id), c.Kill(id))
	case "restart":
		id, err := brokerID()
		if err != nil {
			return answer("", err)
		}
		return answer(fmt.Sprintf("broker %d restarted", id), c.Restart(id))
	case "elect-preferred":
		if err := arity(0, 1); err != nil {
			return answer("", err)
		}
		topic := ""
		if len(args) == 1 {
			topic = args[0]
		}
		sum, err := c.ElectPreferred(topic)
		if err != nil {
			return answer("", err)
		}
		msg := "preferred leader election: " + sum.String()
		for _, f := range sum.Failed {
			msg += "\n  " + f
		}
		return msg
	case "move-controller":
		if err := arity(0, 0); err != nil {
			return answer("", err)
		}
		before := -1
		if a := c.activeController(); a != nil {
			before = a.b.id
		}
		if err := c.MoveController(); err != nil {
			return answer("", err)
		}
		st, err := c.Status()
		if err != nil {
			return answer("", err)
		}
		return fmt.Sprintf("controller moved from broker %d to broker %d (epoch %d)", before, st.Controller, st.ControllerEpoch)
	case "status":
		if err := arity(0, 0); err != nil {
			return answer("", err)
		}
		st, err := c.Status()
		return answer(st.String(), err)
	case "migrate":
		if err := arity(0, 1); err != nil {
			return answer("", err)
		}
		arg := ""
		if len(args) == 1 {
			arg = args[0]
		}
		return answer(c.Migrate(arg))
	case "pace":
		if err := arity(1, 1); err != nil {
			return answer("", err)
		}
		d, err := time.ParseDuration(args[0])
		if args[0] == "0" {
			d, err = 0, nil
		}
		if err != nil || d < 0 {
			return answer("", fmt.Errorf("pace: %q is not a duration such as 250ms or 1s", args[0]))
		}
		c.SetPace(d)
		return fmt.Sprintf("pace %s", d)
	default:
		return fmt.Sprintf("error: unknown command %q (try \"help\")", cmd)
	}
}
