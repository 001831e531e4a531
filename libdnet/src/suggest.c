/* libdnet: "did you mean" (dnet/suggest.h). */
#include <ctype.h>
#include <string.h>
#include "dnet/suggest.h"

#define SUGGEST_MAX 64

unsigned dnet_suggest_distance(const char *a, size_t na, const char *b, size_t nb)
{
	if (na > SUGGEST_MAX || nb > SUGGEST_MAX)
		return SUGGEST_MAX + 1;
	/* three rows of the optimal string alignment table */
	unsigned r0[SUGGEST_MAX + 1], r1[SUGGEST_MAX + 1], r2[SUGGEST_MAX + 1];
	unsigned *pp = r0, *p = r1, *c = r2;
	for (size_t j = 0; j <= nb; j++)
		p[j] = (unsigned)j;
	for (size_t i = 1; i <= na; i++) {
		c[0] = (unsigned)i;
		for (size_t j = 1; j <= nb; j++) {
			int ai = tolower((unsigned char)a[i - 1]), bj = tolower((unsigned char)b[j - 1]);
			unsigned v = p[j - 1] + (ai != bj);
			if (p[j] + 1 < v)
				v = p[j] + 1;
			if (c[j - 1] + 1 < v)
				v = c[j - 1] + 1;
			if (i > 1 && j > 1 && ai == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == bj && pp[j - 2] + 1 < v)
				v = pp[j - 2] + 1;
			c[j] = v;
		}
		unsigned *t = pp;
		pp = p;
		p = c;
		c = t;
	}
	return p[nb];
}

void dnet_suggest_init(struct dnet_suggest *s, const char *word)
{
	s->word = word ? word : "";
	s->best = NULL;
	s->dist = 0;
}

void dnet_suggest_add(struct dnet_suggest *s, const char *name)
{
	if (!name || !*name || strcmp(name, s->word) == 0)
		return;
	unsigned d = dnet_suggest_distance(s->word, strlen(s->word), name, strlen(name));
	if (!s->best || d < s->dist) {
		s->best = name;
		s->dist = d;
	}
}

const char *dnet_suggest_best(const struct dnet_suggest *s)
{
	size_t n = strlen(s->word);
	unsigned limit = n >= 6 ? (unsigned)(n / 3) : 1;
	if (limit > 3)
		limit = 3;
	return s->best && s->dist <= limit ? s->best : NULL;
}
