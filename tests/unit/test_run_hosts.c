/* dsh-run's node-table hosts (dsh/run/hosts.c, D-RUN-HOSTS): which names
 * match where a rank ran, "localhost" as this machine, pdsh's -w list, and
 * the check that fails a rank placed elsewhere (and only such a rank). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "run/run.h"
#include "harness.h"

static void same(void)
{
	CHECK(host_same("node01", "node01"));
	CHECK(host_same("Node01", "NODE01"));
	CHECK(host_same("node01", "node01.lab.example"));
	CHECK(host_same("node01.lab.example", "node01"));
	CHECK(!host_same("node01", "node02"));
	CHECK(!host_same("node0", "node01.lab"));
	CHECK(!host_same("node01.a", "node01.b"));  /* both qualified, different */
	CHECK(!host_same("node01x", "node01"));
	CHECK(!host_same("", "node01"));
}

static struct rank_node table[4];
static struct result res[8];

static void setup(struct run *r, enum launcher l)
{
	memset(r, 0, sizeof *r);
	memset(res, 0, sizeof res);
	r->n = 4;
	r->nscripts = 2;
	r->table = table;
	r->table_path = "lab.nodes";
	r->launcher = l;
	r->res = res;
	snprintf(r->self_host, sizeof r->self_host, "ctl");
	const char *h[4] = { "h1", "h2", "localhost", "h1" };
	for (unsigned k = 0; k < 4; k++)
		snprintf(table[k].host, sizeof table[k].host, "%s", h[k]);
	for (unsigned i = 0; i < 8; i++) {
		res[i].rank = i % 4;
		res[i].script = "t.dsh";
		res[i].status = ST_PASSED;
	}
}

static void names(void)
{
	struct run r;
	setup(&r, L_MPIRUN);
	CHECK_STR(rank_host(&r, 0), "h1");
	CHECK_STR(rank_host(&r, 2), "ctl"); /* localhost: this machine */
	char *l = hosts_list(&r);
	CHECK_STR(l, "h1,h2,ctl,h1"); /* rank order, repeats kept */
	free(l);
}

static void check(void)
{
	struct run r;
	setup(&r, L_PDSH);
	/* script 1: rank 1 ran on h1 (the table says h2), rank 3 never started */
	const char *ran[4] = { "h1", "h1", "ctl.example", "" };
	for (unsigned k = 0; k < 4; k++)
		snprintf(res[4 + k].ran_on, sizeof res[4 + k].ran_on, "%s", ran[k]);
	hosts_check(&r, 1);
	CHECK_EQ(res[4].status, ST_PASSED);
	CHECK_EQ(res[5].status, ST_FAILED);
	CHECK_STR(res[5].message, "rank 1 ran on host h1, but the node table (lab.nodes) puts it on h2 "
				  "(script t.dsh): the launcher placed it elsewhere");
	CHECK_EQ(res[6].status, ST_PASSED); /* localhost = ctl, qualified */
	CHECK_EQ(res[7].status, ST_PASSED); /* no word from it: judged elsewhere */
	CHECK_EQ(res[1].status, ST_PASSED); /* script 0 untouched */
	/* the local launcher runs every rank here: not checked */
	setup(&r, L_LOCAL);
	snprintf(res[1].ran_on, sizeof res[1].ran_on, "ctl");
	hosts_check(&r, 0);
	CHECK_EQ(res[1].status, ST_PASSED);
	/* no table: nothing to check against */
	setup(&r, L_MPIRUN);
	r.table = NULL;
	snprintf(res[1].ran_on, sizeof res[1].ran_on, "elsewhere");
	hosts_check(&r, 0);
	CHECK_EQ(res[1].status, ST_PASSED);
}

int main(void)
{
	RUN(same);
	RUN(names);
	RUN(check);
	return t_summary("test_run_hosts");
}
