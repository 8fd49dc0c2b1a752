package operate

import (
	"bytes"
	"slices"

	tea "charm.land/bubbletea/v2"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/ui/nav"
)

// Adding partitions to a topic: the plan is kafka-topics --alter
// --partitions N's (cluster.PlanAddPartitions, Kafka's placement from
// partition 0's first replica), the write its one-znode multi
// (cluster.WriteAlteration), the progress the new partitions coming online
// (cluster.TopicProgress, the creation wizard's phases).

// replanAdd places the new partitions of the count asked for (twice the
// current count at first).
func (m *Model) replanAdd() {
	t := m.snap.Topic(m.topic)
	if m.count == 0 && t != nil {
		m.count = 2 * len(t.Partitions)
	}
	m.add, m.planErr = clusterops.PlanAddPartitions(m.snap, clusterops.AddPartitionsRequest{Topic: m.topic, Partitions: m.count})
	m.gen = nil
	m.moves, m.warn = nil, clusterops.MoveWarnings{}
	var shown []clusterops.PartitionMove
	if m.add != nil {
		a := m.add.Assignment()
		for _, p := range a.Partitions() {
			m.moves = append(m.moves, clusterops.PartitionMove{TopicPartition: cluster.TopicPartition{Topic: m.topic, Partition: p}, Target: a[p]})
		}
		m.warn = clusterops.WarnMoves(m.snap, m.moves)
		// The new partitions, then the existing ones (dimmed).
		shown = slices.Clone(m.moves)
		for _, p := range t.Partitions {
			if p.InAssignment {
				shown = append(shown, clusterops.PartitionMove{TopicPartition: cluster.TopicPartition{Topic: m.topic, Partition: p.ID}, Current: p.Replicas, Target: p.Replicas})
			}
		}
	}
	m.showOps, m.opsRaw, m.ops, m.opsErr = false, nil, nil, nil
	m.opsSeq++
	m.pv.set(m.snap, shown)
	m.pv.fresh = len(m.moves)
}

// observeAdd reads the new partitions' phases from the snapshot.
func (m *Model) observeAdd() {
	if m.add == nil {
		return
	}
	tp := clusterops.TopicProgress(m.snap, m.topic, m.add.Assignment())
	pr := clusterops.ReassignProgress{Partitions: make([]clusterops.PartitionReassignProgress, len(tp.Partitions)), Waiting: tp.Waiting}
	online := 0
	for i, p := range tp.Partitions {
		slot := addSlot(p.Phase)
		pr.Partitions[i] = clusterops.PartitionReassignProgress{
			PartitionMove: clusterops.PartitionMove{TopicPartition: cluster.TopicPartition{Topic: m.topic, Partition: p.ID}, Target: p.Replicas},
			Phase:         slot, Replicas: p.Replicas, ISR: p.ISR, Leader: p.Leader}
		pr.Count[slot]++
	}
	online = tp.Online
	m.pr = pr
	m.pg.stalled = m.pg.stalled[:0]
	if m.stage == stageProgress && tp.Done() && online == len(tp.Partitions) {
		m.stage = stageDone
		m.finished = m.now()
	}
}

// writeAdd checks the plan against the newest snapshot (the same topic
// znode would be written) and writes it.
func (m *Model) writeAdd() tea.Cmd {
	shown := m.add
	fresh, err := clusterops.PlanAddPartitions(m.snap, clusterops.AddPartitionsRequest{Topic: m.topic, Partitions: m.count})
	if err != nil || !bytes.Equal(fresh.TopicJSON, shown.TopicJSON) || fresh.Version != shown.Version {
		m.replanAdd()
		m.note, m.noteErr = "Not written: the topic changed since the preview. This is the new plan: check it and press enter again.", true
		if err != nil {
			m.note = "Not written: " + err.Error()
		}
		return nil
	}
	z := m.opt.Writer
	if z == nil {
		m.note, m.noteErr = errNoWriter.Error(), true
		return nil
	}
	m.stage = stageWriting
	m.started = m.now()
	ops, id := clusterops.AddPartitionsOps(shown), m.id
	write := func() tea.Msg {
		if err := clusterops.WriteAlteration(z, ops); err != nil {
			return nav.TaskMsg{Task: id, Msg: reassignFailedMsg{err}}
		}
		return nav.TaskMsg{Task: id, Msg: partitionsAddedMsg{}}
	}
	return tea.Batch(write, m.tick())
}
