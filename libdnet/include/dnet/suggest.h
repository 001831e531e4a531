/* SPDX-License-Identifier: MIT */
/* libdnet: "did you mean" -- the nearest of a set of names to a word that
 * is none of them, shared by the programs (command, register, field, key,
 * backend and option names) so that every message suggests alike.
 *
 *   struct dnet_suggest s;
 *   dnet_suggest_init(&s, word);
 *   for (each name) dnet_suggest_add(&s, name);
 *   const char *best = dnet_suggest_best(&s);   // NULL: none close enough
 *
 * The distance is the optimal string alignment distance (Damerau-
 * Levenshtein: an insertion, a deletion, a substitution or two neighbours
 * swapped count 1, "llcm_raed" is 1 from "llcm_read"), case ignored; a name
 * is close enough at a distance of at most a third of the word's length
 * (at least 1, at most 3), and not the word itself.  Ties: the first name added. */
#ifndef DNET_SUGGEST_H
#define DNET_SUGGEST_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* libdnet exports what its headers declare */

struct dnet_suggest {
	const char *word;   /* what was given */
	const char *best;   /* the nearest name so far, NULL none */
	unsigned dist;      /* its distance */
};

void dnet_suggest_init(struct dnet_suggest *s, const char *word);
/* Consider name (kept by pointer: it must outlive the struct's use);
 * NULL and "" are ignored. */
void dnet_suggest_add(struct dnet_suggest *s, const char *name);
/* The nearest name if close enough, else NULL. */
const char *dnet_suggest_best(const struct dnet_suggest *s);
/* The distance between a and b as above (at most 64 bytes of each are
 * compared; longer ones count as far). */
unsigned dnet_suggest_distance(const char *a, size_t na, const char *b, size_t nb);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
