/* dsh-run: the node table's HOST column (decision D-RUN-HOSTS).
 *
 * Under a launcher, rank k is started on the table's host for k: mpirun
 * gets a hostfile read by its sequential mapper, srun the same file as
 * SLURM_HOSTFILE with the arbitrary distribution, pdsh -w in rank order
 * (launch.c).  Whatever the launcher did, every rank reports the nodename
 * it ran on (rankexec.c writes it beside its status), and a rank that ran
 * elsewhere than the table says fails: a launcher, an rcmd or a name
 * service can place a rank on another machine than the one meant, and
 * such a rank drives the right node from the wrong host.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "run.h"

const char *rank_host(const struct run *r, unsigned k)
{
	const char *h = r->table[k].host;
	return strcasecmp(h, "localhost") == 0 && r->self_host[0] ? r->self_host : h;
}

/* Equal ignoring case, or one is the short name (no dot) of the other:
 * uname's nodename may be "node01" where the table says node01.lab.example,
 * or the other way round. */
bool host_same(const char *ran_on, const char *want)
{
	if (strcasecmp(ran_on, want) == 0)
		return true;
	size_t a = strcspn(ran_on, "."), b = strcspn(want, ".");
	if (ran_on[a] && want[b])
		return false; /* both qualified, and different */
	return a == b && strncasecmp(ran_on, want, a) == 0;
}

int hosts_file(const struct run *r, const char *path)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	for (unsigned k = 0; k < r->n; k++)
		fprintf(f, "%s\n", rank_host(r, k));
	return fclose(f);
}

char *hosts_list(const struct run *r)
{
	size_t cap = 1;
	for (unsigned k = 0; k < r->n; k++)
		cap += strlen(rank_host(r, k)) + 1;
	char *l = malloc(cap), *p = l;
	if (!l)
		return NULL;
	*p = 0;
	for (unsigned k = 0; k < r->n; k++)
		p += sprintf(p, "%s%s", k ? "," : "", rank_host(r, k));
	return l;
}

void hosts_check(const struct run *r, unsigned s)
{
	if (!r->table || r->launcher == L_LOCAL)
		return; /* local ranks run here, whatever HOST says (dsh-run(1)) */
	for (unsigned k = 0; k < r->n; k++) {
		struct result *t = &r->res[(size_t)s * r->n + k];
		const char *want = rank_host(r, k);
		if (!t->ran_on[0] || host_same(t->ran_on, want))
			continue;
		t->status = ST_FAILED;
		snprintf(t->message, sizeof t->message,
			 "rank %u ran on host %s, but the node table (%s) puts it on %s (script %s): "
			 "the launcher placed it elsewhere",
			 k, t->ran_on, r->table_path, want, t->script);
	}
}
