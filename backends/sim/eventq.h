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
 * packet (host speed).  An event is written and read field by field, not
 * as a whole struct: a wide copy of fields just stored stalls the CPU. */
static inline void sim_ev_set(struct sim_ev *e, uint64_t t, uint64_t seq, enum sim_evkind kind,
			      unsigned node, uint32_t gen, uint32_t a, void *p)
{
	e->t = t;
	e->seq = seq;
	e->kind = kind;
	e->node = node;
	e->gen = gen;
	e->a = a;
	e->p = p;
}

/* 0 or -1 (out of memory). */
static inline int sim_evq_push(struct sim_evq *q, uint64_t t, enum sim_evkind kind, unsigned node,
			       uint32_t gen, uint32_t a, void *p)
{
	if (q->n == q->cap && sim_evq_grow(q))
		return -1;
	uint64_t seq = q->seq++;
	size_t i = q->n++;
	while (i > 0) {
		size_t parent = (i - 1) / 2;
		const struct sim_ev *pe = &q->v[parent];
		if (pe->t < t || (pe->t == t && pe->seq < seq))
			break;
		q->v[i] = q->v[parent];
		i = parent;
	}
	sim_ev_set(&q->v[i], t, seq, kind, node, gen, a, p);
	return 0;
}

static inline const struct sim_ev *sim_evq_peek(const struct sim_evq *q)
{
	return q->n ? &q->v[0] : NULL;
}

/* Remove the first event (read it first through sim_evq_peek). */
static inline void sim_evq_drop(struct sim_evq *q)
{
	size_t n = --q->n;
	if (!n)
		return;
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
}

/* Free the queue; free(p) of every event still queued. */
void sim_evq_free(struct sim_evq *q);

#endif
