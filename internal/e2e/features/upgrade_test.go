package features

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
	"github.com/ktopo/ktopo/internal/testkit/zktest"
)

// The cluster of the scenario: one Kafka 4.4 controller, Kafka 4.4
// brokers 1 and 2 and Kafka 3.9.2 broker 3, formatted at 3.9-IV0 (the
// newest metadata.version 3.9.2 supports): a cluster whose controllers
// and first brokers were upgraded to 4.4 and whose last broker was not,
// as Kafka's upgrade notes have it between upgrading the servers one at
// a time and finalizing with kafka-features upgrade. Broker 2's
// controller.quorum.voters lead through a proxy the scenario cuts, to
// fence a broker that still runs.
const (
	oldBroker     = 3
	partedBroker  = 2
	liveBroker    = 1
	startRelease  = "3.9-IV0"
	startLevel    = 21
	controllerID  = kafkatest.FirstControllerID
	unknownBroker = 99
	// sessionTimeout fences a stopped or cut-off broker sooner than the
	// rig's 6 s default.
	sessionTimeout = 4 * time.Second
)

// TestMixedVersionUpgrade is issue 31's scenario: ktopo names the 3.9.2
// broker as what holds metadata.version below 4.4's newest level, as
// Kafka's controller does (kafka-features upgrade --dry-run); once that
// broker is stopped its registration still blocks, and ktopo says so;
// ktopo brokers unregister refuses a voter, an unfenced broker, a fenced
// one that still answers and an unknown id, then removes the stopped
// broker's registration on a production context once its id is typed;
// ktopo quorum then finds nothing in the way, and Kafka's own
// kafka-features upgrade goes through.
func TestMixedVersionUpgrade(t *testing.T) {
	start := time.Now()
	kafkatest.Require(t, kafkatest.Kafka39)
	kafkatest.Require(t, kafkatest.Kafka44)
	// Made at broker 2's first properties (its format), once the
	// controller's port is chosen.
	var proxy *zktest.Proxy
	var proxyErr error
	c, err := kafkatest.StartKRaft(kafkatest.KRaftOptions{
		Version:        kafkatest.Kafka44,
		Controllers:    1,
		Brokers:        3,
		Heap:           "320m",
		SessionTimeout: sessionTimeout,
		ReleaseVersion: startRelease,
		NodeVersions:   map[int]string{oldBroker: kafkatest.Kafka39},
		NodeProps: func(n *kafkatest.Node, p map[string]string) {
			if n.ID != partedBroker {
				return
			}
			// One voter: "3000@127.0.0.1:PORT" becomes the proxy's.
			id, addr, _ := strings.Cut(p["controller.quorum.voters"], "@")
			if proxy == nil && proxyErr == nil {
				proxy, proxyErr = zktest.NewProxy(addr)
			}
			if proxy != nil {
				p["controller.quorum.voters"] = id + "@" + proxy.Addr()
			}
		},
	})
	if proxy != nil {
		t.Cleanup(proxy.Close)
	}
	if err != nil || proxyErr != nil {
		t.Fatal(err, proxyErr)
	}
	t.Cleanup(c.Stop)
	kafkatest.Attach(t, c)
	t.Logf("cluster started in %s: controller %d, brokers %v (broker %d on Kafka %s)", time.Since(start).Round(time.Millisecond),
		controllerID, c.BrokerIDs(), oldBroker, c.NodeVersion(oldBroker))
	tool := c.Dist()
	bs, cs := c.Bootstrap(), c.ControllerBootstrap()
	u := newUser(t)
	target, targetName := newestMetadataVersion(t, tool)
	t.Logf("Kafka %s's newest metadata.version: %d (%s)", tool.Version, target, targetName)
	both := []string{"--bootstrap-server", bs, "--bootstrap-controller", cs}

	// (a) Broker 3 holds metadata.version at 3.9-IV0: its range says so,
	// and Kafka's controller refuses 4.4's level naming it.
	q, js := u.quorum(both...)
	mv := metadataVersion(t, q, js)
	if mv.Finalized != startLevel || mv.Ceiling != startLevel || mv.Highest != target || fmt.Sprint(mv.HeldBy) != fmt.Sprintf("[broker %d]", oldBroker) {
		t.Errorf("metadata.version finalized %d, ceiling %d, highest %d, held by %v; want %d, %d, %d, [broker %d]\n%s",
			mv.Finalized, mv.Ceiling, mv.Highest, mv.HeldBy, startLevel, startLevel, target, oldBroker, js)
	}
	refusal := fmt.Sprintf("Invalid update version %d for feature metadata.version. Broker %d only supports versions 1-%d", target, oldBroker, startLevel)
	if hc := mv.HeldCheck; hc == nil || hc.Level != target || hc.Accepted || !strings.Contains(hc.Refusal, refusal) {
		t.Errorf("metadata.version's check at %d: %+v; want Kafka's refusal %q\n%s", target, hc, refusal, js)
	}
	if want := (blockJSON{Node: fmt.Sprintf("broker %d", oldBroker), Level: target, Max: startLevel, Registered: true, Answered: true}); len(mv.Blockers) != 1 || mv.Blockers[0] != want {
		t.Errorf("metadata.version's blockers %+v, want [%+v]\n%s", mv.Blockers, want, js)
	}
	text := u.ok(append([]string{"quorum"}, both...)...)
	for _, want := range []string{
		fmt.Sprintf("%s is held back by broker %d (up to %s)", targetName, oldBroker, startRelease),
		fmt.Sprintf("broker %d blocks metadata.version %s (it supports up to %s, as Kafka 3.9 does)", oldBroker, targetName, startRelease),
	} {
		if !strings.Contains(text, want) {
			t.Errorf("ktopo quorum lacks %q:\n%s", want, text)
		}
	}
	t.Logf("ktopo quorum, broker %d running Kafka %s:\n%s", oldBroker, c.NodeVersion(oldBroker), text)
	dryRun(t, tool, bs, targetName, refusal)

	// (e) ktopo brokers unregister's refusals, each once: a voter, an
	// unfenced broker, an unknown id, a fenced broker that answers.
	unregister := func(id int, extra ...string) []string {
		return append([]string{"brokers", "unregister", strconv.Itoa(id), "--bootstrap-server", bs, "--bootstrap-controller", cs}, extra...)
	}
	u.refused(fmt.Sprintf("Error: refusing to unregister broker %d: broker %d is a voter of the metadata quorum", controllerID, controllerID), unregister(controllerID)...)
	u.refused(fmt.Sprintf("Error: refusing to unregister broker %d: broker %d is alive (registered and unfenced)", liveBroker, liveBroker), unregister(liveBroker)...)
	u.refused(fmt.Sprintf("Error: refusing to unregister broker %d: Broker ID %d is not currently registered", unknownBroker, unknownBroker), unregister(unknownBroker)...)
	checkFencedAnswering(t, u, c, proxy, bs, cs)

	// (b) Broker 3 is stopped: fenced, it answers no more, and its
	// registration still holds the upgrade back, which Kafka's
	// controller's refusal tells.
	c.Node(oldBroker).Stop()
	bs = c.Node(liveBroker).Addr() + "," + c.Node(partedBroker).Addr()
	both = []string{"--bootstrap-server", bs, "--bootstrap-controller", cs}
	waitFor(t, fmt.Sprintf("ktopo quorum shows broker %d fenced", oldBroker), time.Minute, func() bool {
		q, js = u.quorum(both...)
		fenced, answered, ok := q.registration(oldBroker)
		return ok && fenced && !answered
	}, func() string { return js })
	mv = metadataVersion(t, q, js)
	if uc := mv.UpgradeCheck; uc == nil || uc.Level != target || uc.Accepted || !strings.Contains(uc.Refusal, refusal) {
		t.Errorf("after broker %d stopped, metadata.version's check: %+v; want Kafka's refusal %q\n%s", oldBroker, uc, refusal, js)
	}
	if want := (blockJSON{Node: fmt.Sprintf("broker %d", oldBroker), Level: target, Max: startLevel, FromRefusal: true, Registered: true, Fenced: true}); len(mv.Blockers) != 1 || mv.Blockers[0] != want {
		t.Errorf("after broker %d stopped, blockers %+v, want [%+v]\n%s", oldBroker, mv.Blockers, want, js)
	}
	text = u.ok(append([]string{"quorum"}, both...)...)
	for _, want := range []string{
		fmt.Sprintf("broker %d's registration blocks metadata.version %s (it supports up to %s, as Kafka 3.9 does)", oldBroker, targetName, startRelease),
		fmt.Sprintf(", as Kafka's controller's refusals say; the broker is fenced and does not answer: if it is gone for good, ktopo brokers unregister %d removes its registration", oldBroker),
		fmt.Sprintf("  broker %d: fenced; down: does not answer at", oldBroker),
	} {
		if !strings.Contains(text, want) {
			t.Errorf("ktopo quorum, broker %d stopped, lacks %q:\n%s", oldBroker, want, text)
		}
	}
	t.Logf("ktopo quorum, broker %d stopped:\n%s", oldBroker, text)
	dryRun(t, tool, bs, targetName, refusal)

	// (c) ktopo brokers unregister 3 on a production context: refused off
	// a terminal, refused when another id is typed, sent when 3 is.
	unregister = func(id int, extra ...string) []string {
		return append([]string{"brokers", "unregister", strconv.Itoa(id), "--bootstrap-server", bs}, extra...)
	}
	preview := u.ok(unregister(oldBroker)...)
	for _, want := range []string{
		fmt.Sprintf("Broker %d: fenced; down: does not answer at", oldBroker),
		fmt.Sprintf("Its registration blocks metadata.version %s (it supports up to %s, as Kafka 3.9 does), ", targetName, startRelease),
		"Kafka's controller counts it until it is unregistered.\n",
		fmt.Sprintf("UnregisterBroker brokerId=%d\nNothing sent: --execute sends it.", oldBroker),
	} {
		if !strings.Contains(preview, want) {
			t.Errorf("preview lacks %q:\n%s", want, preview)
		}
	}
	t.Logf("ktopo brokers unregister %d (preview):\n%s", oldBroker, preview)
	u.context("prod", "    bootstrap-server: "+bs+"\n    production: true\n")
	prod := []string{"--context", "prod", "brokers", "unregister", strconv.Itoa(oldBroker), "--execute"}
	u.refused(fmt.Sprintf("refusing to unregister broker %d on production context prod without confirmation: on a terminal ktopo asks for %d to be typed", oldBroker, oldBroker), prod...)
	wrong := u.atTerminal("7\n", prod...)
	if wrong.code == 0 || !strings.Contains(wrong.stdout, fmt.Sprintf(`not confirmed (typed "7", not %d): did not unregister broker %d; nothing was sent`, oldBroker, oldBroker)) {
		t.Errorf("another id typed: %s", wrong)
	}
	if q, js = u.quorum(both...); !registered(q, oldBroker) {
		t.Fatalf("broker %d's registration went away although another id was typed\n%s", oldBroker, js)
	}
	typed := u.atTerminal(strconv.Itoa(oldBroker)+"\n", prod...)
	for _, want := range []string{
		fmt.Sprintf("Context prod is production: type %d to unregister broker %d: ", oldBroker, oldBroker),
		fmt.Sprintf("Broker %d unregistered.\nBroker %d is no longer registered.\n", oldBroker, oldBroker),
	} {
		if typed.code != 0 || !strings.Contains(typed.stdout, want) {
			t.Errorf("unregister with %d typed lacks %q: %s", oldBroker, want, typed)
		}
	}

	// (d) Nothing holds metadata.version back: ktopo says Kafka's
	// controller accepts 4.4's level, and Kafka's own kafka-features
	// upgrade goes through.
	q, js = u.quorum(both...)
	mv = metadataVersion(t, q, js)
	if uc := mv.UpgradeCheck; uc == nil || uc.Level != target || !uc.Accepted || len(mv.Blockers) != 0 || len(mv.HeldBy) != 0 {
		t.Errorf("after the unregistration, metadata.version's check %+v, blockers %+v, held by %v; want %d accepted, nothing in the way\n%s",
			uc, mv.Blockers, mv.HeldBy, target, js)
	}
	text = u.ok(append([]string{"quorum"}, both...)...)
	if want := fmt.Sprintf("Kafka's controller accepts %s (asked with validateOnly", targetName); !strings.Contains(text, want) {
		t.Errorf("ktopo quorum after the unregistration lacks %q:\n%s", want, text)
	}
	t.Logf("ktopo quorum, broker %d unregistered:\n%s", oldBroker, text)
	res := kafkaTool(t, tool, "kafka-features", "--bootstrap-server", bs, "upgrade", "--metadata", targetName)
	if res.Code != 0 {
		t.Fatalf("kafka-features upgrade --metadata %s: exit %d\n%s%s", targetName, res.Code, res.Stdout, res.Stderr)
	}
	t.Logf("kafka-features upgrade --metadata %s: %s", targetName, strings.TrimSpace(res.Stdout))
	waitFor(t, "kafka-features describe shows metadata.version "+targetName, 30*time.Second, func() bool {
		res = kafkaTool(t, tool, "kafka-features", "--bootstrap-server", bs, "describe")
		return regexp.MustCompile(`Feature: metadata\.version\s+SupportedMinVersion: \S+\s+SupportedMaxVersion: \S+\s+FinalizedVersionLevel: ` + regexp.QuoteMeta(targetName) + `\s`).MatchString(res.Stdout)
	}, func() string { return res.Stdout + res.Stderr })
	q, js = u.quorum(both...)
	if mv = metadataVersion(t, q, js); mv.Finalized != target {
		t.Errorf("ktopo quorum after the upgrade: metadata.version finalized at %d, want %d\n%s", mv.Finalized, target, js)
	}
	t.Logf("scenario took %s", time.Since(start).Round(time.Millisecond))
}

// checkFencedAnswering cuts broker 2 off the controller: fenced after the
// session timeout, it still answers at its endpoint, and ktopo brokers
// unregister refuses it as running. ktopo is given the 3.9.2 broker
// alone: its DescribeCluster (v1 at most) lists no fenced broker, and
// ktopo asks a 4.4 broker it lists instead (broker 2's own metadata,
// cut off, still says it is unfenced). The proxy is healed then, and
// broker 2 is unfenced again.
func checkFencedAnswering(t *testing.T, u *user, c *kafkatest.KRaftCluster, proxy *zktest.Proxy, bs, cs string) {
	t.Helper()
	b3 := c.Node(oldBroker).Addr()
	proxy.Cut()
	var q quorumJSON
	var js string
	waitFor(t, fmt.Sprintf("broker %d fenced while it runs", partedBroker), time.Minute, func() bool {
		q, js = u.quorum("--bootstrap-server", b3, "--bootstrap-controller", cs)
		fenced, answered, _ := q.registration(partedBroker)
		return fenced && answered
	}, func() string { return js })
	if !q.FencedListed {
		t.Errorf("through Kafka 3.9.2's broker %d, fenced brokers not listed:\n%s", oldBroker, js)
	}
	u.refused(fmt.Sprintf("Error: refusing to unregister broker %d: broker %d is fenced but answers at %s: it runs (starting, catching up or shutting down); stop it for good first",
		partedBroker, partedBroker, c.Node(partedBroker).Addr()), "brokers", "unregister", strconv.Itoa(partedBroker), "--bootstrap-server", b3)
	proxy.Pass()
	waitFor(t, fmt.Sprintf("broker %d unfenced again", partedBroker), time.Minute, func() bool {
		q, js = u.quorum("--bootstrap-server", bs, "--bootstrap-controller", cs)
		fenced, _, ok := q.registration(partedBroker)
		return ok && !fenced
	}, func() string { return js })
}

func metadataVersion(t *testing.T, q quorumJSON, js string) featureJSON {
	t.Helper()
	for _, f := range q.Features {
		if f.Name == "metadata.version" {
			return f
		}
	}
	t.Fatalf("no metadata.version in ktopo quorum --output json:\n%s", js)
	return featureJSON{}
}

func registered(q quorumJSON, id int) bool {
	_, _, ok := q.registration(id)
	return ok
}

// newestMetadataVersion asks Kafka's kafka-features version-mapping for
// the version's newest production metadata.version: its level and name.
func newestMetadataVersion(t *testing.T, d *kafkatest.Dist) (int, string) {
	t.Helper()
	res := kafkaTool(t, d, "kafka-features", "version-mapping")
	m := regexp.MustCompile(`metadata\.version=(\d+) \(([^)]+)\)`).FindStringSubmatch(res.Stdout)
	if res.Code != 0 || m == nil {
		t.Fatalf("kafka-features version-mapping: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	level, _ := strconv.Atoi(m[1])
	return level, m[2]
}

// dryRun checks that Kafka's kafka-features upgrade --metadata --dry-run
// refuses the upgrade as ktopo said Kafka's controller does.
func dryRun(t *testing.T, d *kafkatest.Dist, bs, release, refusal string) {
	t.Helper()
	res := kafkaTool(t, d, "kafka-features", "--bootstrap-server", bs, "upgrade", "--metadata", release, "--dry-run")
	if res.Code == 0 || !strings.Contains(res.Stdout+res.Stderr, refusal) {
		t.Errorf("kafka-features upgrade --metadata %s --dry-run: exit %d, want Kafka's refusal %q\n%s%s", release, res.Code, refusal, res.Stdout, res.Stderr)
	}
	t.Logf("kafka-features upgrade --metadata %s --dry-run: exit %d %s%s", release, res.Code, res.Stdout, res.Stderr)
}

func kafkaTool(t *testing.T, d *kafkatest.Dist, script string, args ...string) kafkatest.Result {
	t.Helper()
	res, err := d.Command(script, args...)
	if err != nil {
		t.Fatal(err)
	}
	return res
}
