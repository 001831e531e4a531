/* Unknown options with "did you mean" (optsuggest.h). */
#include <stdio.h>
#include <string.h>
#include "dnet/suggest.h"
#include "optsuggest.h"

const char *opt_unknown_msg(const char *arg, const struct option *lo, char *buf, size_t n)
{
	char word[64] = "";
	if (arg[0] == '-' && (arg[1] == '-' || strlen(arg) > 2)) {
		const char *w = arg + 1 + (arg[1] == '-');
		size_t l = strcspn(w, "=");
		if (l < sizeof word) {
			memcpy(word, w, l);
			word[l] = 0;
		}
	}
	const struct option *start = lo;
	struct dnet_suggest s;
	dnet_suggest_init(&s, word);
	for (; word[0] && lo->name; lo++)
		dnet_suggest_add(&s, lo->name);
	const char *best = word[0] ? dnet_suggest_best(&s) : NULL;
	/* "-json": a long option given with one dash */
	for (const struct option *o = start; arg[1] != '-' && word[0] && o->name; o++)
		if (strcmp(o->name, word) == 0)
			best = o->name;
	if (best)
		snprintf(buf, n, "unknown option '%s' (did you mean '--%s'?)", arg, best);
	else
		snprintf(buf, n, "unknown option '%s'", arg);
	return buf;
}
