/* sim: a Chrome trace-event / Perfetto JSON of what the model does, in
 * virtual time (sim option trace=FILE).  One process per node, one thread
 * per stage: the host's accesses, the Acceptor, the Window Controller's
 * executor, the packets it sends (the sender's SWIF, link and switch, the
 * receiver's SWIF), the Receive Controller, the status writes.  ts and dur
 * are microseconds, as the format wants.
 *
 * Perfetto nests the complete ("X") events of one thread and flags a
 * partial overlap as an import error, but a stage can hold several things
 * at once (packets in flight on the link).  Such a span goes to the
 * track's next lane, a thread of its own named "<track> (2)" and so on. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include "sim/sim.h"

static const char *const track_name[SIM_TR_COUNT] = {
	[SIM_TR_HOST] = "host", [SIM_TR_ACC] = "acceptor", [SIM_TR_EXEC] = "executor",
	[SIM_TR_SWIF_TX] = "SWIF send", [SIM_TR_SWITCH] = "link + switch", [SIM_TR_SWIF_RX] = "SWIF receive",
	[SIM_TR_RC] = "receive controller", [SIM_TR_STATUS] = "status write",
};

int sim_trace_open(struct sim *s, const char *path, struct dnet_err *err)
{
	/* trace=- is standard output (D-OUT-STDOUT), one stream of its own: a
	 * duplicate of descriptor 1, not a second open of the file it is */
	if (strcmp(path, "-") == 0) {
		int fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
		s->trace = fd < 0 ? NULL : fdopen(fd, "w");
		if (!s->trace && fd >= 0)
			close(fd);
		if (!s->trace)
			return dnet_seterr(err, DNET_EIO, "sim: trace=-: cannot write standard output");
		fputs("[\n", s->trace);
		s->trace_first = true;
		return 0;
	}
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
	free(s->trace_lane);
	s->trace_lane = NULL;
}

static void sep(struct sim *s)
{
	if (!s->trace_first)
		fputs(",\n", s->trace);
	s->trace_first = false;
}

#define LANES 16 /* spans at once per stage; a 17th would share the last lane */

static unsigned tid_of(unsigned track, unsigned lane) { return track + 1 + lane * SIM_TR_COUNT; }

/* Name a lane's thread, and sort it beside its track's other lanes. */
static void name_lane(struct sim *s, unsigned node, unsigned track, unsigned lane)
{
	sep(s);
	fprintf(s->trace, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"args\":{\"name\":\"%s",
		node, tid_of(track, lane), track_name[track]);
	if (lane)
		fprintf(s->trace, " (%u)", lane + 1);
	fputs("\"}},\n", s->trace);
	fprintf(s->trace, "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"args\":{\"sort_index\":%u}}",
		node, tid_of(track, lane), track * LANES + lane);
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
	for (unsigned t = 0; t < SIM_TR_COUNT; t++)
		name_lane(s, node, t, 0);
}

/* The string as a JSON string's contents. */
static void put_json_str(FILE *f, const char *p)
{
	for (; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
}

/* The lane (0 = the track itself) free at t0, claimed up to t1; a thread
 * id per node, track and lane. */
static unsigned lane_tid(struct sim *s, unsigned node, enum sim_track tr, uint64_t t0, uint64_t t1)
{
	if (!s->trace_lane && !(s->trace_lane = calloc((size_t)(s->nnodes + 1) * SIM_TR_COUNT * LANES, sizeof *s->trace_lane)))
		return tid_of(tr, 0);
	uint64_t *end = s->trace_lane + ((size_t)node * SIM_TR_COUNT + tr) * LANES;
	unsigned l = 0;
	while (l + 1 < LANES && end[l] && end[l] - 1 > t0)
		l++;
	if (l && !end[l])
		name_lane(s, node, tr, l);
	if (end[l] < t1 + 1)
		end[l] = t1 + 1;
	return tid_of(tr, l);
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
	if (t1 < t0)
		t1 = t0;
	name_node(s, node);
	unsigned tid = node && node <= s->nnodes ? lane_tid(s, node, tr, t0, t1) : tid_of(tr, 0);
	sep(s);
	fputs("{\"name\":\"", s->trace);
	put_json_str(s->trace, name);
	fprintf(s->trace, "\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,\"pid\":%u,\"tid\":%u}", (double)t0 / 1000.0,
		(double)(t1 - t0) / 1000.0, node, tid);
}
