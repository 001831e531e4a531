/* dsh-run: what each rank is given -- its backend (the node table's, -b,
 * or the private dnetd), its token (only through its environment,
 * D-RUN-SECRETS), the rank map, and the PGIDs set before any rank runs.
 * Below launch.c, isolate.c and preflight.c, which all call it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include "run.h"

const char *rank_backend(const struct run *r, unsigned k)
{
	if (r->table && r->table[k].backend[0])
		return r->table[k].backend;
	return r->backend;
}

const char *rank_token(const struct run *r, unsigned k)
{
	if (r->table && r->table[k].backend[0])
		return r->table[k].token[0] ? r->table[k].token : getenv("DNET_TOKEN");
	if (r->backend && r->token[0])
		return r->token;
	return r->backend ? getenv("DNET_TOKEN") : NULL; /* the private dnetd needs none */
}

char *rank_token_env(const struct run *r, unsigned k)
{
	const char *t = rank_token(r, k);
	char *e = NULL;
	if (t && *t && asprintf(&e, "DNET_TOKEN=%s", t) < 0)
		e = NULL;
	return e;
}

/* "remote:unix:SOCK" for the private dnetd. */
const char *run_private_backend(const struct run *r, char *buf, size_t n)
{
	snprintf(buf, n, "remote:unix:%s", r->sock);
	return buf;
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s);
	if (!d) {
		fprintf(stderr, "dsh-run: out of memory\n");
		exit(2);
	}
	return d;
}

char *run_envf(const char *fmt, const char *a, unsigned long v)
{
	char b[8192];
	if (a)
		snprintf(b, sizeof b, fmt, a);
	else
		snprintf(b, sizeof b, fmt, v);
	return xstrdup(b);
}

/* "DSH_RANKMAP=CLID:WID,..." from the node table (malloc'd; NULL: no memory). */
char *run_rankmap_env(const struct run *r)
{
	size_t cap = (size_t)r->n * 16 + 32;
	char *m = malloc(cap);
	if (!m)
		return NULL;
	size_t l = (size_t)snprintf(m, cap, "DSH_RANKMAP=");
	for (unsigned k = 0; k < r->n; k++)
		l += (size_t)snprintf(m + l, cap - l, "%s%u:%u", k ? "," : "", r->table[k].clid, r->table[k].wid);
	return m;
}

/* PGIDs of a node table are set before any rank runs: a rank that set its
 * PGID while a faster peer already sent to it would drop that packet. */
int pgid_setup(struct run *r)
{
	char *rm = r->table ? run_rankmap_env(r) : NULL;
	for (unsigned k = 0; r->table && k < r->n; k++) {
		if (!r->table[k].has_pgid)
			continue;
		char backend_buf[4400], errf[4400];
		const char *b = rank_backend(r, k) ? rank_backend(r, k)
						   : run_private_backend(r, backend_buf, sizeof backend_buf);
		char *tok = rank_token_env(r, k);
		char *env[6] = { run_envf("DSH_RANK=%lu", NULL, k), run_envf("DSH_SIZE=%lu", NULL, r->n),
				 run_envf("DSH_PGID=%lu", NULL, r->table[k].pgid), tok, rm, NULL };
		unsigned ne = 3;
		if (tok)
			env[ne++] = tok;
		if (rm)
			env[ne++] = rm;
		snprintf(errf, sizeof errf, "%s/pgid.rank%u.err", r->tmp, k);
		char *argv[] = { (char *)r->dsh, (char *)"-b", (char *)b, (char *)"-c", (char *)"info", NULL };
		pid_t p = run_spawn(argv, "/dev/null", errf, env, ne);
		int st = 0;
		for (unsigned i = 0; i < 3; i++)
			free(env[i]);
		free(tok);
		if (p < 0 || waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st)) {
			fprintf(stderr, "dsh-run: could not set PGID %u of rank %u (CLID %u, WID %u); see %s\n",
				r->table[k].pgid, k, r->table[k].clid, r->table[k].wid, errf);
			free(rm);
			return -1;
		}
	}
	free(rm);
	return 0;
}
