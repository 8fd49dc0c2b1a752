package cluster

func (m *Model) applyBroker(id int, ev *NodeEvent, del bool) {
	old := m.brokers[id]
	if del {
		if old == nil {
			return
		}
		delete(m.brokers, id)
		m.clearErr(ev.Path)
		m.changed = true
		m.emit(Change{Kind: ChangeBrokerGone, Path: ev.Path, Zxid: ev.Stat.Mzxid, Time: ev.Stat.Mtime, Broker: id})
		return
	}
	if old != nil && unchanged(true, old.mzxid, ev) && old.czxid == ev.Stat.Czxid {
		return
	}
	reg, err := DecodeBroker(ev.Data)
	m.noteErr(ev.Path, err, ev)
	nb := &brokerNode{reg: reg, err: err, czxid: ev.Stat.Czxid, mzxid: ev.Stat.Mzxid, ctime: ev.Stat.Ctime}
	if nb.czxid == 0 && old != nil { // stat unknown: same registration
		nb.czxid, nb.ctime = old.czxid, old.ctime
	}
	m.brokers[id] = nb
	if err == nil || reg.RackPresence != Absent || len(reg.Endpoints) > 0 {
		m.lastKnown[id] = reg
	}
	m.changed = true
	c := Change{Path: ev.Path, Zxid: ev.Stat.Mzxid, Time: ev.Stat.Mtime, Broker: id}
	switch {
	case old == nil || old.czxid != nb.czxid:
		c.Kind, c.BrokerEpoch, c.Rack = ChangeBrokerRegistered, nb.czxid, reg.Rack
	case string(EncodeBroker(old.reg)) != string(EncodeBroker(reg)) || (old.err == nil) != (err == nil):
		c.Kind = ChangeBrokerUpdated
	default:
		return
	}
	m.emit(c)
}
