/* sim: a Chrome trace-event / Perfetto JSON of what the model does, in
 * virtual time (sim option trace=FILE).  One process per node, one thread
 * per stage: the host's accesses, the Window Controller's executor, the
 * packets it sends (SWIF, switch, SWIF), the Receive Controller, the status
 * writes.  ts and dur are microseconds, as the format wants. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sim/sim.h"

static const char *const track_name[SIM_TR_COUNT] = {
	[SIM_TR_HOST] = "host", [SIM_TR_EXEC] = "executor", [SIM_TR_NET] = "SWIF + switch",
	[SIM_TR_RC] = "receive controller", [SIM_TR_STATUS] = "status write",
};

int sim_trace_open(struct sim *s, const char *path, struct dnet_err *err)
{
	s->trace = fopen(path, "w");
	if (!s->trace)
		return dnet_seterr(err, DNET_EIO, "sim: trace=%s: cannot create the file", path);
	fputs("[\n", s->trace);
	s->trace_first = true;
	return 0;
}

void sim_trace_close(struct sim *s)
{
	if (!s->trace)
		return;
	fputs("\n]\n", s->trace);
	fclose(s->trace);
	s->trace = NULL;
	free(s->trace_named);
	s->trace_named = NULL;
}

static void sep(struct sim *s)
{
	if (!s->trace_first)
		fputs(",\n", s->trace);
	s->trace_first = false;
}

/* Name a node's process and tracks the first time it appears. */
static void name_node(struct sim *s, unsigned node)
{
	if (!node || node > s->nnodes)
		return;
	if (!s->trace_named && !(s->trace_named = calloc(s->nnodes + 1, 1)))
		return;
	if (s->trace_named[node])
		return;
	s->trace_named[node] = 1;
	sep(s);
	fprintf(s->trace, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%u,\"args\":{\"name\":\"node %u (CLID %u)\"}}",
		node, node, node);
	for (unsigned t = 0; t < SIM_TR_COUNT; t++) {
		sep(s);
		fprintf(s->trace, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"args\":{\"name\":\"%s\"}}",
			node, t + 1, track_name[t]);
	}
}

void sim_trace_span(struct sim *s, unsigned node, enum sim_track tr, uint64_t t0, uint64_t t1,
		    const char *fmt, ...)
{
	if (!s->trace)
		return;
	char name[160];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(name, sizeof name, fmt, ap);
	va_end(ap);
	name_node(s, node);
	sep(s);
	fprintf(s->trace, "{\"name\":\"%s\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,\"pid\":%u,\"tid\":%u}", name,
		(double)t0 / 1000.0, (double)(t1 > t0 ? t1 - t0 : 0) / 1000.0, node, (unsigned)tr + 1);
}
