package kafkaops

import (
	"context"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
)

var _ clusterops.VoterChanger = (*Writer)(nil)

// ChangeVoters sends AddRaftVoter or RemoveRaftVoter (KIP-853, what
// kafka-metadata-quorum add-controller and remove-controller send): the
// quorum's leader appends a VotersRecord and answers once a majority of
// the new voter set has it (AckWhenCommitted, Kafka 4.2+'s default and
// 3.9's only behaviour). A broker forwards either to the leader; a
// controller that does not lead answers NOT_LEADER_OR_FOLLOWER. Neither
// has validateOnly: Validate sends nothing.
func (w *Writer) ChangeVoters(ctx context.Context, ch cluster.VoterChange, m clusterops.Mode) (clusterops.Writes, error) {
	what := ch.Verb()
	var req kmsg.Request
	var line string
	if ch.Add {
		r := kmsg.NewPtrAddRaftVoterRequest()
		r.TimeoutMillis, r.VoterID, r.VoterDirectoryID = w.timeoutMs(), int32(ch.ID), ch.DirectoryID
		var ls []string
		for _, l := range ch.Listeners {
			rl := kmsg.NewAddRaftVoterRequestListener()
			rl.Name, rl.Host, rl.Port = l.Name, l.Host, uint16(l.Port)
			r.Listeners = append(r.Listeners, rl)
			ls = append(ls, l.String())
		}
		req = r
		line = "AddRaftVoter voterId=" + strconv.Itoa(ch.ID) + " voterDirectoryId=" + ch.DirectoryID.String() +
			" listeners=" + strings.Join(ls, ",") + " timeoutMs=" + strconv.Itoa(int(w.timeoutMs()))
	} else {
		r := kmsg.NewPtrRemoveRaftVoterRequest()
		r.VoterID, r.VoterDirectoryID = int32(ch.ID), ch.DirectoryID
		req = r
		line = "RemoveRaftVoter voterId=" + strconv.Itoa(ch.ID) + " voterDirectoryId=" + ch.DirectoryID.String()
	}
	ws := writes(what, []string{line})
	if m != clusterops.Apply {
		return ws, nil
	}
	ctx, cancel := context.WithTimeout(ctx, w.timeout)
	defer cancel()
	resp, err := send[kmsg.Response](ctx, w.cl, req)
	if err != nil {
		return ws, err
	}
	switch r := resp.(type) {
	case *kmsg.AddRaftVoterResponse:
		return ws, codeError(r.ErrorCode, r.ErrorMessage, what, aclAlterCluster)
	case *kmsg.RemoveRaftVoterResponse:
		return ws, codeError(r.ErrorCode, r.ErrorMessage, what, aclAlterCluster)
	}
	return ws, nil
}
