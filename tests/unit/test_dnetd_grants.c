/* dnetd's grant files (backends/remote/dnetd/grants.c): the grammar shared by
 * --user-tokens and --allow, its FILE:LINE errors, and the file checks
 * (a token file readable by others, an allow-list writable by others);
 * what a client holds with --allow and --user-tokens together (srv_auth.c):
 * what both grant. */
/* Decisions pinned here (docs/decisions.md): D-DNETD-PRIV. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sys/socket.h>

#include "harness.h"
#include "remote/dnetd/grants.h"
#include "remote/dnetd/srv.h"

static void parse_ok(void)
{
	struct dnet_grants g;
	struct dnet_err e;
	CHECK_OK(srv_grants_parse("# users\n\n  alice node=2 wid=1\r\n\tbob\tnode=1  wid=0,1\n# end\ncarol node=3 wid=1,0",
				   "ut", true, &g, &e), &e);
	CHECK_EQ(g.n, 3u);
	if (g.n == 3) {
		CHECK_STR(g.g[0].token, "alice");
		CHECK_EQ(g.g[0].node, 2u);
		CHECK_EQ(g.g[0].wids, 2u);
		CHECK_STR(g.g[0].where, "ut:3");
		CHECK_STR(g.g[1].token, "bob");
		CHECK_EQ(g.g[1].wids, 3u);
		CHECK_STR(g.g[2].where, "ut:6");
		CHECK_EQ(g.g[2].wids, 3u);
	}
	srv_grants_free(&g);
	CHECK_OK(srv_grants_parse("user:root node=1 wid=0\nuid:65534 node=2 wid=1\ngroup:root node=3 wid=0,1\n",
				   "al", false, &g, &e), &e);
	CHECK_EQ(g.n, 3u);
	if (g.n == 3) {
		CHECK_EQ(g.g[0].kind, DNET_GRANT_UID);
		CHECK_EQ(g.g[0].id, 0u);
		CHECK_EQ(g.g[1].id, 65534u);
		CHECK_EQ(g.g[2].kind, DNET_GRANT_GROUP);
		CHECK_EQ(g.g[2].id, 0u);
	}
	srv_grants_free(&g);
	char w[16];
	CHECK_STR(srv_grants_wids(3, w, sizeof w), "0,1");
	CHECK_STR(srv_grants_wids(2, w, sizeof w), "1");
}

static void bad(const char *text, bool tokens, const char *want)
{
	struct dnet_grants g;
	struct dnet_err e;
	dnet_clearerr(&e);
	int rc = srv_grants_parse(text, "f", tokens, &g, &e);
	CHECK(rc < 0);
	CHECK(g.n == 0 && g.g == NULL);
	if (!strstr(e.msg, want))
		fprintf(stderr, "  %s: message [%s] lacks [%s]\n", text, e.msg, want);
	CHECK(strstr(e.msg, want) != NULL);
}

static void parse_errors(void)
{
	bad("t node=1\n", true, "f:1: missing wid");
	bad("\n\nt wid=1\n", true, "f:3: missing node");
	bad("t node=1 wid=0 node=2\n", true, "f:1: node= given twice");
	bad("t node=1 wid=0 wid=1\n", true, "f:1: wid= given twice");
	bad("t node=1 wid=0,0\n", true, "f:1: WID 0 listed twice");
	bad("t node=1 wid=2\n", true, "WIDs are 0 and 1");
	bad("t node=1 wid=\n", true, "f:1: wid=");
	bad("t node=0 wid=0\n", true, "f:1: node=0");
	bad("t node=x wid=0\n", true, "f:1: node=x");
	bad("t node=1 wid=0 extra\n", true, "f:1: 'extra'");
	bad("t node=1 wid=0 color=red\n", true, "unknown key 'color'");
	bad("a node=1 wid=0\nb node=1 wid=0\na node=2 wid=1\n", true, "f:3: the same token as f:1");
	bad("t\x01x node=1 wid=0\n", true, "f:1: control character 0x01");
	bad("node=1 wid=0\n", true, "must start with the token");
	bad("alice node=1 wid=0\n", false, "expected user:NAME, uid:N or group:NAME");
	bad("host:x node=1 wid=0\n", false, "expected user:, uid: or group:");
	bad("user: node=1 wid=0\n", false, "f:1:");
	bad("user:no-such-user-zz node=1 wid=0\n", false, "no user 'no-such-user-zz'");
	bad("group:no-such-group-zz node=1 wid=0\n", false, "no group 'no-such-group-zz'");
	bad("uid:-1 node=1 wid=0\n", false, "f:1: uid:-1");
	char longtok[300];
	memset(longtok, 'k', 256);
	snprintf(longtok + 256, sizeof longtok - 256, " node=1 wid=0\n");
	bad(longtok, true, "longer than 255 bytes");
}

static char dir[64];

static void write_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	chmod(path, mode);
}

static void files(void)
{
	struct dnet_grants g;
	struct dnet_err e;
	char p[128];
	snprintf(p, sizeof p, "%s/ut", dir);
	write_file(p, "tok node=1 wid=0\n", 0600);
	CHECK_OK(srv_grants_load(p, true, &g, &e), &e);
	CHECK_EQ(g.n, 1u);
	srv_grants_free(&g);
	chmod(p, 0604);
	CHECK_EQ(srv_grants_load(p, true, &g, &e), -DNET_EPERM);
	CHECK(strstr(e.msg, "readable by others") != NULL);
	chmod(p, 0640); /* its group may read it (a dnetd group) */
	CHECK_OK(srv_grants_load(p, true, &g, &e), &e);
	srv_grants_free(&g);
	/* an allow-list holds no secret but grants rights */
	snprintf(p, sizeof p, "%s/al", dir);
	write_file(p, "uid:1 node=1 wid=0\n", 0644);
	CHECK_OK(srv_grants_load(p, false, &g, &e), &e);
	srv_grants_free(&g);
	chmod(p, 0646);
	CHECK_EQ(srv_grants_load(p, false, &g, &e), -DNET_EPERM);
	CHECK(strstr(e.msg, "writable by others") != NULL);
	/* nothing granted, not a file, missing */
	write_file(p, "# nobody yet\n", 0644);
	CHECK(srv_grants_load(p, false, &g, &e) < 0);
	CHECK(strstr(e.msg, "grants nothing") != NULL);
	CHECK(srv_grants_load(dir, false, &g, &e) < 0);
	CHECK(strstr(e.msg, "not a regular file") != NULL);
	snprintf(p, sizeof p, "%s/missing", dir);
	CHECK(srv_grants_load(p, true, &g, &e) < 0);
	CHECK(strstr(e.msg, "cannot read") != NULL);
	/* the file's name and line in an error */
	snprintf(p, sizeof p, "%s/ut2", dir);
	write_file(p, "a node=1 wid=0\n\nb node=1\n", 0600);
	CHECK(srv_grants_load(p, true, &g, &e) < 0);
	CHECK(strstr(e.msg, "/ut2:3: missing wid") != NULL);
}

/* --allow and --user-tokens together (srv_auth.c): a confined client's
 * grant is what both grant, node by node and WID by WID -- compared with
 * a table computed here, for each token, over every node and WID; without
 * the allow-list (dnetd's own uid) the token's grant alone. */
static struct dnet_srv srv; /* large (the virtual-time buckets): not on the stack */

static void both_grants(void)
{
	struct dnet_grants al, ut;
	struct dnet_err e;
	char text[200];
	unsigned uid = (unsigned)getuid();
	/* the allow-list: node 2 WID 1, node 3 WID 0, node 1 WIDs 0,1 */
	snprintf(text, sizeof text, "uid:%u node=2 wid=1\nuid:%u node=3 wid=0\nuid:%u node=1 wid=0,1\n", uid, uid, uid);
	const bool allow[4][2] = { { 0, 0 }, { 1, 1 }, { 0, 1 }, { 1, 0 } };
	CHECK_OK(srv_grants_parse(text, "al", false, &al, &e), &e);
	CHECK_OK(srv_grants_parse("t2 node=2 wid=0,1\nt3 node=3 wid=1\nt1 node=1 wid=0\n", "ut", true, &ut, &e), &e);
	const bool tok[3][4][2] = {
		{ { 0, 0 }, { 0, 0 }, { 1, 1 }, { 0, 0 } }, /* t2 */
		{ { 0, 0 }, { 0, 0 }, { 0, 0 }, { 0, 1 } }, /* t3 */
		{ { 0, 0 }, { 1, 0 }, { 0, 0 }, { 0, 0 } }, /* t1 */
	};
	const char *text_both[3] = { "node 2 WID 1", "nothing", "node 1 WID 0" };
	int sv[2] = { -1, -1 };
	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	srv.cfg.allow = &al;
	for (unsigned t = 0; t < 3 && ut.n == 3 && al.n == 3; t++) {
		for (int confined = 1; confined >= 0; confined--) {
			struct client c;
			memset(&c, 0, sizeof c);
			c.auth.uid = (long)uid;
			if (confined)
				CHECK_EQ(srv_allow_grants(&srv, &c, sv[0], getgid()), 0);
			srv_grant_token(&c, &ut.g[t]);
			CHECK(c.auth.confined);
			for (unsigned node = 1; node <= 3; node++)
				for (unsigned wid = 0; wid < 2; wid++) {
					bool want = tok[t][node][wid] && (!confined || allow[node][wid]);
					if (srv_grant_allows(&c, node, wid) != want)
						fprintf(stderr, "  token %s, %s: node %u WID %u %s\n", ut.g[t].token,
							confined ? "allow-list too" : "alone", node, wid,
							want ? "refused" : "granted");
					CHECK(srv_grant_allows(&c, node, wid) == want);
				}
			char what[120];
			if (confined)
				CHECK_STR(srv_grant_text(&c, what, sizeof what), text_both[t]);
			free(c.auth.gp);
		}
	}
	srv.cfg.allow = NULL;
	if (sv[0] >= 0) {
		close(sv[0]);
		close(sv[1]);
	}
	srv_grants_free(&al);
	srv_grants_free(&ut);
}

int main(void)
{
	snprintf(dir, sizeof dir, "/tmp/dnet-grants.XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	RUN(parse_ok);
	RUN(parse_errors);
	RUN(files);
	RUN(both_grants);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	return t_summary("test_dnetd_grants");
}
