/* sim: deterministic event queue (binary heap keyed by (time, sequence)). */
#include <stdlib.h>
#include "sim/eventq.h"

static bool ev_before(const struct sim_ev *a, const struct sim_ev *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

int sim_evq_push(struct sim_evq *q, const struct sim_ev *ev)
{
	if (q->n == q->cap) {
		size_t cap = q->cap ? q->cap * 2 : 256;
		struct sim_ev *v = realloc(q->v, cap * sizeof *v);
		if (!v)
			return -1;
		q->v = v;
		q->cap = cap;
	}
	struct sim_ev e = *ev;
	e.seq = q->seq++;
	size_t i = q->n++;
	while (i > 0) {
		size_t parent = (i - 1) / 2;
		if (!ev_before(&e, &q->v[parent]))
			break;
		q->v[i] = q->v[parent];
		i = parent;
	}
	q->v[i] = e;
	return 0;
}

const struct sim_ev *sim_evq_peek(const struct sim_evq *q)
{
	return q->n ? &q->v[0] : NULL;
}

bool sim_evq_pop(struct sim_evq *q, struct sim_ev *ev)
{
	if (!q->n)
		return false;
	*ev = q->v[0];
	struct sim_ev last = q->v[--q->n];
	size_t i = 0;
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		const struct sim_ev *best = &last;
		if (l < q->n && ev_before(&q->v[l], best)) {
			m = l;
			best = &q->v[l];
		}
		if (r < q->n && ev_before(&q->v[r], best))
			m = r;
		if (m == i)
			break;
		q->v[i] = q->v[m];
		i = m;
	}
	if (q->n)
		q->v[i] = last;
	return true;
}

void sim_evq_free(struct sim_evq *q)
{
	for (size_t i = 0; i < q->n; i++)
		free(q->v[i].p);
	free(q->v);
	q->v = NULL;
	q->n = q->cap = 0;
}
