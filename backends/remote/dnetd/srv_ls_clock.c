/* dnetd --lockstep, what each request records: the clock a client's host
 * has reached after a request served in virtual-time order.  Below the
 * dispatch, which calls it after each such request; the scheduler that
 * reads it and lets requests through (srv_lockstep.c) sits above the
 * dispatch, so the two call each other through no cycle. */
#include "remote/dnetd/srv.h"

#include "dnet/backend.h"

/* A statistic of dev (a node's handle, or the device's), or dflt when it
 * has none. */
uint64_t srv_ls_stat(struct dnet_dev *dev, const char *name, uint64_t dflt)
{
	struct dnet_err e;
	uint64_t v = dflt;
	if (dnet_stat(dev, name, &v, &e))
		v = dflt;
	return v;
}

void srv_ls_clock_update(struct dnet_srv *s, struct client *c)
{
	uint64_t t = srv_ls_stat(srv_dev(s, c), "host_ns", c->ls.clock);
	if (t > c->ls.clock)
		c->ls.clock = t;
}
