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

/* 0 or -1 (out of memory). */
int sim_evq_push(struct sim_evq *q, const struct sim_ev *ev);
bool sim_evq_pop(struct sim_evq *q, struct sim_ev *ev);
const struct sim_ev *sim_evq_peek(const struct sim_evq *q);
/* Free the queue; free(p) of every event still queued. */
void sim_evq_free(struct sim_evq *q);

#endif
