/* sim: deterministic event queue.  A binary min-heap keyed by (time,
 * sequence): events at the same virtual time run in the order they were
 * scheduled, so the same run gives the same result every time. */
#ifndef SIM_EVENTQ_H
#define SIM_EVENTQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum sim_evkind {
	EV_ACCEPT,      /* a kicked request moves from the command register into the FIFO */
	EV_WC,          /* Window Controller executor step */
	EV_RC,          /* Receive Controller step */
	EV_ARRIVE,      /* a packet reaches the destination's SWIF (p = packet) */
	EV_SDIMM_INIT,  /* SO-DIMM initialisation completes */
	EV_TICK,        /* nothing: wakes waits at a time something time-based changes */
};

struct sim_ev {
	uint64_t t;
	uint64_t seq;
	enum sim_evkind kind;
	unsigned node;  /* 1-based */
	uint32_t gen;   /* engine generation (stale events after a reset are ignored) */
	uint32_t a;
	void *p;        /* owned by the event (freed if never run) */
};

struct sim_evq {
	struct sim_ev *v;
	size_t n, cap;
	uint64_t seq;
};

/* Room for one more event: 0 or -1 (out of memory). */
int sim_evq_grow(struct sim_evq *q);

static inline bool sim_ev_before(const struct sim_ev *a, const struct sim_ev *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

/* Push, pop and peek are inline: the emulator runs a few of them per
 * packet (host speed). */
/* 0 or -1 (out of memory). */
static inline int sim_evq_push(struct sim_evq *q, const struct sim_ev *ev)
{
	if (q->n == q->cap && sim_evq_grow(q))
		return -1;
	struct sim_ev e = *ev;
	e.seq = q->seq++;
	size_t i = q->n++;
	while (i > 0) {
		size_t parent = (i - 1) / 2;
		if (!sim_ev_before(&e, &q->v[parent]))
			break;
		q->v[i] = q->v[parent];
		i = parent;
	}
	q->v[i] = e;
	return 0;
}

static inline const struct sim_ev *sim_evq_peek(const struct sim_evq *q)
{
	return q->n ? &q->v[0] : NULL;
}

static inline bool sim_evq_pop(struct sim_evq *q, struct sim_ev *ev)
{
	if (!q->n)
		return false;
	*ev = q->v[0];
	size_t n = --q->n;
	if (!n)
		return true;
	const struct sim_ev *last = &q->v[n];
	size_t i = 0;
	for (;;) {
		size_t l = 2 * i + 1, m = l;
		if (l >= n)
			break;
		if (l + 1 < n && sim_ev_before(&q->v[l + 1], &q->v[l]))
			m = l + 1;
		if (!sim_ev_before(&q->v[m], last))
			break;
		q->v[i] = q->v[m];
		i = m;
	}
	q->v[i] = *last;
	return true;
}

/* Free the queue; free(p) of every event still queued. */
void sim_evq_free(struct sim_evq *q);

#endif
