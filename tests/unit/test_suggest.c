/* "did you mean" (libdnet/src/suggest.c): the distance, swaps counted one,
 * the threshold, ties. */
/* Decisions pinned here (docs/decisions.md): D-SUGGEST. */
#include "dnet/dnet.h"
#include "harness.h"

static const char *best(const char *word, const char *const *names)
{
	struct dnet_suggest s;
	dnet_suggest_init(&s, word);
	for (; *names; names++)
		dnet_suggest_add(&s, *names);
	return dnet_suggest_best(&s);
}

static void distance(void)
{
	CHECK_EQ(dnet_suggest_distance("llcm_raed", 9, "llcm_read", 9), 1u);   /* a swap */
	CHECK_EQ(dnet_suggest_distance("ctl_stauts", 10, "ctl_status", 10), 1u);
	CHECK_EQ(dnet_suggest_distance("kitten", 6, "sitting", 7), 3u);
	CHECK_EQ(dnet_suggest_distance("", 0, "abc", 3), 3u);
	CHECK_EQ(dnet_suggest_distance("ABC", 3, "abc", 3), 0u);                /* case ignored */
	CHECK_EQ(dnet_suggest_distance("ca", 2, "abc", 3), 3u);                 /* OSA, not unrestricted */
}

static void suggestions(void)
{
	static const char *const cmds[] = { "llcm_read", "llcm_write", "ureg_read", "reg", "help", NULL };
	CHECK_STR(best("llcm_raed", cmds), "llcm_read");
	CHECK_STR(best("llcm_wirte", cmds), "llcm_write");
	CHECK_STR(best("hlep", cmds), "help");
	CHECK(best("frobnicate", cmds) == NULL);  /* nothing close */
	CHECK(best("x", cmds) == NULL);
	CHECK(best("reg", cmds) == NULL);         /* the word itself is no suggestion */
	static const char *const tie[] = { "abd", "abe", NULL };
	CHECK_STR(best("abc", tie), "abd"); /* the first of equals */
	char longw[200];
	memset(longw, 'a', sizeof longw - 1);
	longw[sizeof longw - 1] = 0;
	static const char *const one[] = { "aaaa", NULL };
	CHECK(best(longw, one) == NULL);           /* too long to compare: far */
}

int main(void)
{
	RUN(distance);
	RUN(suggestions);
	return t_summary("test_suggest");
}
