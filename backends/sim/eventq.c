/* sim: deterministic event queue (binary heap keyed by (time, sequence)). */
#include <stdlib.h>
#include "sim/eventq.h"

int sim_evq_grow(struct sim_evq *q)
{
	size_t cap = q->cap ? q->cap * 2 : 256;
	struct sim_ev *v = realloc(q->v, cap * sizeof *v);
	if (!v)
		return -1;
	q->v = v;
	q->cap = cap;
	return 0;
}

void sim_evq_free(struct sim_evq *q)
{
	for (size_t i = 0; i < q->n; i++)
		free(q->v[i].p);
	free(q->v);
	q->v = NULL;
	q->n = q->cap = 0;
}
