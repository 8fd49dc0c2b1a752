package cli

import (
	"github.com/spf13/cobra"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterwatch"
	"github.com/ktopo/ktopo/internal/cli/render"
	"github.com/ktopo/ktopo/zkwatch"
)

// watchLoaded is how a write command starts: it connects, mirrors the
// cluster live, waits for the first load and returns its snapshot (the
// undecodable znodes named on stderr). The watch then follows what the
// write sets off; it gives up once the session has been lost for
// --request-timeout. close ends the watch and the session.
func (f *connFlags) watchLoaded(c *cobra.Command) (w *clusterwatch.Watch, conn *zkwatch.Conn, s *cluster.Snapshot, close func(), err error) {
	ctx := c.Context()
	w, conn, close, err = f.watch(ctx)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	w.LostAfter = f.requestTimeout
	if _, err := w.Loaded(ctx); err != nil {
		close()
		return nil, nil, nil, nil, err
	}
	s = w.Model.Snapshot()
	render.WriteNodeErrors(c.ErrOrStderr(), s)
	return w, conn, s, close, nil
}
