/* dsh-run: before the first script, every rank reaches its backend, and the
 * ranks meant to share one emulated cluster do (D-RUN-PREFLIGHT).
 *
 * A probe opens a rank's backend once and says what it reached: the
 * cluster id (dnet_dev_cluster: dnetd's, drawn at its start and sent in
 * HELLO), the node count, the capabilities and the host.  Local ranks are
 * probed here, by dsh-run, before the first script (one connection per
 * distinct backend: the ranks run on this machine).  A launcher's ranks
 * probe themselves in --exec-rank (rankexec.c) on their own hosts, before
 * dsh starts, into DIR/rankK.hello; run_script judges them as they come
 * and stops the launcher at once on a mismatch, rather than let barriers
 * wait for a timeout.  On a board (no virtual time) each host's backend
 * serves its own board: only reachability is checked.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "dnet/device.h"
#include "run.h"

void preflight_probe(const char *spec, const char *token, char *line, size_t n)
{
	char full[1024], host[128] = "?";
	struct dnet_dev *dev = NULL;
	struct dnet_err e = { 0 };
	gethostname(host, sizeof host - 1);
	host[strcspn(host, " \t\n")] = 0;
	/* the token stays in this process: spec text with it is never shown */
	snprintf(full, sizeof full, "%s%s%s", spec, token && *token ? "," : "", token && *token ? "token=" : "");
	if (token && *token)
		strncat(full, token, sizeof full - strlen(full) - 1);
	if (dnet_open(full, &dev, &e) < 0 || !dev) {
		snprintf(line, n, "error %s", e.msg[0] ? e.msg : "cannot open");
		line[strcspn(line, "\n")] = 0;
		memset(full, 0, sizeof full);
		return;
	}
	memset(full, 0, sizeof full);
	snprintf(line, n, "ok %016llx %u %u %s", (unsigned long long)dnet_dev_cluster(dev), dnet_node_count(dev),
		 dnet_dev_caps(dev), host);
	dnet_close(dev);
}

/* A probe's line read back. */
struct seen {
	bool ok;
	unsigned long long cluster;
	unsigned nodes, caps;
	char host[128];
	const char *msg;
};

static bool parse(const char *line, struct seen *s)
{
	memset(s, 0, sizeof *s);
	if (!strncmp(line, "error ", 6)) {
		s->msg = line + 6;
		return true;
	}
	s->ok = sscanf(line, "ok %llx %u %u %127s", &s->cluster, &s->nodes, &s->caps, s->host) == 4;
	return s->ok;
}

static unsigned clid_of(const struct run *r, unsigned k)
{
	return r->table ? r->table[k].clid : k + 1;
}

static const char *shown_backend(const struct run *r, unsigned k, char *buf, size_t n)
{
	if (r->table && r->table[k].backend[0])
		return r->table[k].shown;
	if (r->backend)
		return r->backend_shown;
	snprintf(buf, n, "the private dnetd (remote:unix:%.3000s)", r->sock);
	return buf;
}

int preflight_judge(const struct run *r, char *const *lines, char *why, size_t wn)
{
	char b[4400], b2[4400];
	int first = -1;
	why[0] = 0;
	for (unsigned k = 0; k < r->n; k++) {
		struct seen s;
		if (!lines[k] || !parse(lines[k], &s))
			continue;
		if (!s.ok) {
			snprintf(why, wn, "rank %u cannot reach its backend %s: %s", k, shown_backend(r, k, b, sizeof b),
				 s.msg);
			return -1;
		}
		if (!(s.caps & DNET_CAP_VIRTUAL_TIME))
			continue; /* a board: each host's own */
		if (!(s.caps & DNET_CAP_REMOTE))
			continue; /* -b sim: each dsh its own emulator, as asked (D-RUN-STATE "process") */
		if (clid_of(r, k) > s.nodes) {
			snprintf(why, wn, "rank %u drives CLID %u, but its backend %s (on %s) serves %u node%s", k,
				 clid_of(r, k), shown_backend(r, k, b, sizeof b), s.host, s.nodes, s.nodes == 1 ? "" : "s");
			return -1;
		}
		if (!s.cluster)
			continue; /* a dnetd before protocol 1.2 does not say */
		if (first < 0) {
			first = (int)k;
			continue;
		}
		struct seen f;
		parse(lines[first], &f);
		if (f.cluster != s.cluster) {
			snprintf(why, wn, "ranks %d (on %s) and %u (on %s) reach different emulated clusters "
				 "(dnetd cluster ids %016llx and %016llx, backends %s and %s): on the emulator every "
				 "rank must reach one dnetd (one dnetd per host serves a cluster of its own; "
				 "dsh-run(1), CHECKS BEFORE THE FIRST SCRIPT)", first, f.host, k, s.host, f.cluster, s.cluster,
				 shown_backend(r, (unsigned)first, b, sizeof b), shown_backend(r, k, b2, sizeof b2));
			return -1;
		}
	}
	return 0;
}

int preflight_local(struct run *r)
{
	char **lines = calloc(r->n, sizeof *lines);
	if (!lines)
		return -1;
	char priv[4400], why[2048];
	int rc = 0;
	if (r->dnetd_pid > 0 && run_wait_listening(r) < 0) {
		free(lines);
		return -1;
	}
	for (unsigned k = 0; k < r->n && !rc; k++) {
		const char *spec = r->table && r->table[k].backend[0] ? r->table[k].backend : r->backend;
		if (!spec) {
			snprintf(priv, sizeof priv, "remote:unix:%s", r->sock);
			spec = priv;
		}
		const char *tok = rank_token(r, k);
		/* one probe per distinct backend and token: the same daemon here */
		for (unsigned j = 0; j < k && !lines[k]; j++) {
			const char *sj = r->table && r->table[j].backend[0] ? r->table[j].backend : r->backend;
			const char *tj = rank_token(r, j);
			if (((!sj && spec == priv) || (sj && !strcmp(sj, spec))) &&
			    ((!tj && !tok) || (tj && tok && !strcmp(tj, tok))))
				lines[k] = strdup(lines[j]);
		}
		if (!lines[k]) {
			char line[1200];
			preflight_probe(spec, tok, line, sizeof line);
			lines[k] = strdup(line);
		}
		if (!lines[k])
			rc = -1;
	}
	if (!rc && preflight_judge(r, lines, why, sizeof why) < 0) {
		fprintf(stderr, "dsh-run: before the first script: %s\n", why);
		snprintf(r->abort_why, sizeof r->abort_why, "%s", why);
		rc = -1;
	}
	for (unsigned k = 0; k < r->n; k++)
		free(lines[k]);
	free(lines);
	return rc;
}
