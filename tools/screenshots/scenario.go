package main

import "time"

// A step of the walk through ktopo: keys to send, what the screen must
// show then, and the picture to take (none for a step that only moves on).
type step struct {
	name  string   // the picture: <out>/<name>.png; "" for none
	title string   // what it shows
	keys  []string // tmux key names, or literal text after the literal prefix
	want  []string // on the screen before the picture
	gone  []string // not on it
	// live takes the picture as soon as want shows, without waiting for
	// the screen to settle (an animation in progress).
	live bool
}

// literal marks a key as text to type as it is.
const literal = "\x00"

func text(s string) string { return literal + s }

// The sandbox's controller pace: slow enough to catch a creation half way.
const scenarioPace = "250ms"

const (
	waitDeadline = 60 * time.Second // for a screen to show what a step wants
	settleQuiet  = time.Second      // a screen unchanged this long is settled
)

// scenario is the walk, in order: the healthy cluster first, then a
// topic's creation, then a broker killed and what it did.
func scenario() []step {
	return []step{
		{name: "overview", title: "Overview: racks, brokers, the controller",
			want: []string{"SANDBOX", "broker 6", "partitions 95", "under-replicated 0", "preferred", "LOAD", "imbalance 0%"}},
		{name: "help", title: "Help: the keys of the screen",
			keys: []string{"?"}, want: []string{"Keys · any key closes · Overview", "Reading the screens"}},
		{title: "back", keys: []string{"Escape"}, gone: []string{"Keys · any key closes · Overview"}},
		{name: "drain-bytes", title: "Drain preview: the bytes each broker sends and receives, the ETA by throttle",
			keys: []string{"d", "t"}, want: []string{"Drain broker 1", "bytes: ", "to copy", "ETA: throttle 10 MiB/s: about"}},
		{title: "drain closed", keys: []string{"Escape"}, gone: []string{"Drain broker 1"}},
		{name: "tree", title: "Tree: a broker's registration, decoded",
			keys: []string{"3", "j", "j", "l", "j", "l", "j"},
			want: []string{"/brokers/ids/1", "registration of broker 1", "endpoints"}},
		{name: "create-form", title: "Creation wizard: the form, checked as you type",
			keys: []string{"1", "c", text("invoices"), "Tab", "Tab", "Tab", "Tab", text("retention.ms=604800000 cleanup.policy=comp")},
			want: []string{"Create a topic", "✓ available", "Invalid value comp for configuration cleanup.policy"}},
		{name: "create-preview", title: "Creation wizard: the preview of every replica's broker",
			keys: []string{"Tab", "Enter"}, want: []string{"Preview invoices", "start index", "after: replicas"}},
		{name: "create-progress", title: "Creation wizard: the controller bringing the partitions online",
			keys: []string{"Enter", "y"}, want: []string{"Creating invoices", "sandbox pace " + scenarioPace, "6/12 online"}, live: true},
		{title: "creation done", want: []string{"Topic invoices is online"}},
		{title: "wizard closed, its announcement gone", keys: []string{"Escape", "1"},
			want: []string{"topics 6", "partitions 107"}, gone: []string{"Create", "invoices created"}},
		{name: "whatif", title: "What-if: what losing broker 2 would do",
			keys: []string{"l", "f"}, want: []string{"What if broker 2 fails", "under-replicated · new leader"}},
		{name: "whatif-held", title: "What-if: broker 2 killed (x), the prediction held",
			keys: []string{"x"}, want: []string{"Broker 2 is down", "✓ As predicted"}},
		{name: "broker-down", title: "Overview: broker 2 killed",
			keys: []string{"Escape", "h"}, want: []string{"OFFLINE", "under-replicated 50"}, gone: []string{"What if"}},
		{name: "topics", title: "Topics: under-replicated partitions per topic",
			keys: []string{"2"}, want: []string{"Topics  6 of 6", "invoices", "__consumer_offsets", "SIZE"}, gone: []string{"Killed broker"}},
		{name: "topic", title: "Topic: partitions, leaders, replicas out of the ISR",
			keys: []string{":", text("topic orders"), "Enter"}, want: []string{"Topic orders", "6 under-replicated", "2!"}},
		{name: "events", title: "Events: the creation, then broker 2's failure",
			keys: []string{"4", "g"}, want: []string{"topic created", "partition online", "broker left", "leader moved", "ISR shrank"}},
		{title: "broker 2 restarted", keys: []string{"1", "l", "x"}, want: []string{"Restarted broker 2"}},
		{title: "broker 2 back in the ISRs", want: []string{"under-replicated 0"}},
		{title: "KRaft controllers ready", keys: []string{":", text("migrate"), "Enter"}, want: []string{"KRaft controller 3000 started"}},
		{title: "the KRaft controller takes over", keys: []string{":", text("migrate"), "Enter"}, want: []string{"KRaft controller 3000 (epoch 1)"}},
		{name: "migration", title: "Migration radar: a KRaft controller took over, dual write",
			keys: []string{"5"}, want: []string{"[dual-write]", "KRaft controller 3000 (epoch 1)", "ZooKeeper mode   1, 2, 3, 4, 5, 6", "HAZARDS  none"},
			live: true}, // judged again every second: it never settles
		{name: "migration-stopped", title: "Migration radar: the controller's sync into ZooKeeper stopped",
			keys: []string{":", text("migrate freeze"), "Enter"}, want: []string{"sync-stopped:", "stopped: the offset has not moved"},
			live: true},
	}
}

// kraftSession is the KRaft sandbox's broker.session.timeout.ms in the
// pictures: short, so that a killed broker is fenced within moments.
const kraftSession = "2s"

// kraftScenario is the walk on the KRaft sandbox (ktopo --sandbox kraft):
// its overview with the metadata quorum, then a broker killed and fenced,
// then the Quorum tab with its leader killed.
func kraftScenario() []step {
	return []step{
		{title: "the KRaft sandbox's overview", want: []string{"SANDBOX", "quorum leader 3000 (epoch 1)", "broker 6", "partitions 95", "under-replicated 0", "sizes of 6 brokers"},
			gone: []string{"Tree", "Migration"}},
		{name: "kraft-sandbox", title: "KRaft sandbox: broker 2 killed (x), fenced once its session timed out",
			keys: []string{"l", "x"}, want: []string{"FENCED", "fenced 2", "brokers 5/6 live"}},
		{title: "the Quorum tab", keys: []string{"6"}, want: []string{"Metadata quorum", "VOTERS 3", "3000★", "so 1 may fail."}},
		{name: "quorum", title: "Quorum: the leader, controller 3000, killed (x): 3001 leads, and the majority's sentence counts 3000 down",
			keys: []string{"x"}, want: []string{"3001★", "with controller 3000", "none may", "follower, down"},
			live: true}, // the polls' quorum, taken every second: it never settles
	}
}
