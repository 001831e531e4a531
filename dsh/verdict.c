/* dsh: the device's verdict on a primitive (prim ... wait).  A primitive
 * that raised an error flag has failed, whatever the counter says: the
 * issuing node's Controller Status is compared before and after, and so is
 * the destination's where the backend reaches it (sim, remote cluster,
 * several nodes in one shell): receive overrun, status ring full,
 * receive-controller error state, PGID drops.  A test that provokes an
 * error on purpose names it (allow=FLAG,...) and fails if it does not rise.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "dsh.h"

#define PGID_FLAG "pgid_drop"

static const struct dnet_reg *cs_reg(void)
{
	return dsh_reg_at(DNET_BLK_USER, DNET_UR_CTL_STATUS, DNET_ACC_R);
}

/* Controller Status (and the PGID-drop count where the backend keeps one)
 * of node k, WID wid. */
static int snap(struct dsh *d, struct dsh_vnode *s)
{
	struct dnet_err e = { 0 };
	unsigned cur = dnet_node(d->dev);
	if (s->node != cur && dnet_set_node(d->dev, s->node, &e) < 0)
		return dsh_derr(d, &e);
	int rc = dnet_reg_read(d->dev, s->wid, cs_reg(), &s->cs, &e);
	s->has_pgid = rc == 0 && dnet_stat(d->dev, "pgid_drops", &s->pgid, NULL) == 0;
	if (s->node != cur)
		dnet_set_node(d->dev, cur, NULL);
	return rc < 0 ? dsh_derr(d, &e) : 0;
}

int dsh_verdict_begin(struct dsh *d, const struct dnet_otype_info *oi, const struct dnet_req *rq,
		      struct dsh_verdict *v)
{
	memset(v, 0, sizeof *v);
	if (!cs_reg())
		return dsh_error(d, "libdnet has no Controller Status");
	v->n[0].node = dnet_node(d->dev);
	v->n[0].wid = d->wid;
	v->nn = 1;
	v->vs_window = -1;
	if (rq && oi->family == DNET_FAM_VS)
		v->vs_window = (int)((rq->srcoff >> 9) & 3u);
	/* The destination, when this shell reaches it. */
	if (rq && oi->remote && rq->dclid >= 1 && rq->dclid <= dnet_node_count(d->dev) &&
	    (rq->dclid != v->n[0].node || rq->dwid != d->wid)) {
		v->n[1].node = rq->dclid;
		v->n[1].wid = rq->dwid;
		v->nn = 2;
	}
	for (unsigned i = 0; i < v->nn; i++)
		if (snap(d, &v->n[i]) < 0)
			return -1;
	return 0;
}

static bool listed(const char *list, const char *flag)
{
	size_t n = strlen(flag);
	for (const char *p = list; p && *p;) {
		const char *c = strchr(p, ',');
		size_t l = c ? (size_t)(c - p) : strlen(p);
		if (l == n && strncmp(p, flag, n) == 0)
			return true;
		p = c ? c + 1 : NULL;
	}
	return false;
}

int dsh_verdict_check_allow(struct dsh *d, const char *allow)
{
	const struct dnet_reg *cs = cs_reg();
	for (const char *p = allow; p && *p;) {
		const char *c = strchr(p, ',');
		size_t l = c ? (size_t)(c - p) : strlen(p);
		char name[48];
		if (l == 0 || l >= sizeof name)
			return dsh_error(d, "allow=: empty or overlong flag name");
		memcpy(name, p, l);
		name[l] = 0;
		const struct dnet_field *f = cs ? dnet_field_by_name(cs, name) : NULL;
		bool ok = strcmp(name, PGID_FLAG) == 0 ||
			  (f && (strstr(name, "overrun") || strcmp(name, "rc_state") == 0 ||
				 strcmp(name, "status_full") == 0));
		if (!ok)
			return dsh_error(d, "allow=: '%s' is not an error flag (ww<N>_src_overrun, "
					 "ww<N>_dst_overrun, rc_overrun, rc_state, status_full, %s)", name,
					 PGID_FLAG);
		p = c ? c + 1 : NULL;
	}
	return 0;
}

struct raised {
	char text[1024];
	int unexpected;
	cJSON *arr;
	const char *allow;
	char seen[512];   /* allowed flags that rose */
};

static void add(struct raised *r, unsigned node, const char *flag, const char *meaning)
{
	bool ok = listed(r->allow, flag);
	if (r->arr) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "node", node);
		cJSON_AddStringToObject(o, "flag", flag);
		if (meaning)
			cJSON_AddStringToObject(o, "meaning", meaning);
		cJSON_AddBoolToObject(o, "allowed", ok);
		cJSON_AddItemToArray(r->arr, o);
	}
	if (ok) {
		size_t l = strlen(r->seen);
		snprintf(r->seen + l, sizeof r->seen - l, ",%s", flag);
		return;
	}
	r->unexpected++;
	size_t l = strlen(r->text);
	snprintf(r->text + l, sizeof r->text - l, "%snode %u %s%s%s%s", l ? ", " : "", node, flag,
		 meaning ? " (" : "", meaning ? meaning : "", meaning ? ")" : "");
}

int dsh_verdict_end(struct dsh *d, struct dsh_verdict *v, const char *allow, cJSON *errs)
{
	const struct dnet_reg *cs = cs_reg();
	struct raised r = { .arr = errs, .allow = allow };
	for (unsigned i = 0; i < v->nn; i++) {
		struct dsh_vnode after = v->n[i];
		if (snap(d, &after) < 0)
			return -1;
		const struct dsh_vnode *b = &v->n[i];
		for (unsigned k = 0; k < cs->nfields; k++) {
			const struct dnet_field *f = &cs->fields[k];
			uint64_t was = dnet_field_get(f, b->cs), now = dnet_field_get(f, after.cs);
			bool ww = strncmp(f->name, "ww", 2) == 0 && strstr(f->name, "overrun");
			if (!(ww || strcmp(f->name, "rc_overrun") == 0 || strcmp(f->name, "rc_state") == 0 ||
			      strcmp(f->name, "status_full") == 0))
				continue;
			if (ww && i > 0)
				continue; /* a Write Window's flags belong to the issuer */
			/* A VS-family request clears its window's bits when it
			 * starts (D-SIM-CS-CLEAR): set afterwards means raised now. */
			bool own = ww && v->vs_window >= 0 && f->name[2] - '0' == v->vs_window;
			if (!now || (now == was && !own))
				continue;
			char mb[80];
			const char *m = dnet_field_meaning(f, now, mb, sizeof mb);
			add(&r, after.node, f->name, m ? m : f->desc);
		}
		if (b->has_pgid && after.has_pgid && after.pgid > b->pgid)
			add(&r, after.node, PGID_FLAG, "packet dropped: PGID differs from the receiver's");
	}
	/* Every flag the test said it provokes must have risen. */
	char missing[256] = "";
	for (const char *p = allow; p && *p;) {
		const char *c = strchr(p, ',');
		size_t l = c ? (size_t)(c - p) : strlen(p);
		char name[48];
		snprintf(name, sizeof name, "%.*s", (int)l, p);
		if (!listed(r.seen + (r.seen[0] == ',' ? 1 : 0), name)) {
			size_t m = strlen(missing);
			snprintf(missing + m, sizeof missing - m, "%s%s", m ? ", " : "", name);
		}
		p = c ? c + 1 : NULL;
	}
	if (r.unexpected)
		return dsh_error(d, "device error flag%s raised: %s", r.unexpected == 1 ? "" : "s", r.text);
	if (missing[0])
		return dsh_error(d, "allowed error flag%s did not rise: %s", strchr(missing, ',') ? "s" : "",
				 missing);
	return 0;
}
