/* dsh: the fault command -- faults in the emulated switch (backends/sim/
 * faults.c) and what SWIF's retransmission made of them.
 *
 *   fault                       rules, seed, timeout, counters
 *   fault KIND [RATE] [from N] [to N] [for DUR] [nth K] [every K] [count C] [data|acks]
 *   fault seed N | fault rto DUR
 *   fault clear
 *
 * The rule words are the emulator's own (sim:...,faults=... reads the same,
 * with ':' between words).  Everything goes through the emulator's
 * parameters (fault.*, swif.*: dnet/param.h), so the command works on the
 * in-process emulator and on a daemon's alike.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "dsh.h"

#define NKINDS 6u
#define NRULES 32u

/* What the fault.* and swif.* parameters say, read at once. */
struct fault_info {
	uint64_t seed, rto_ns;
	unsigned nrules;
	char rule[NRULES][128];
	uint64_t fired[NRULES];
	uint64_t injected[NKINDS];
	uint64_t retransmissions, timeouts, duplicates_dropped, crc_errors, out_of_sequence;
	uint64_t acks_sent, naks_sent, unacked;
};

static const char *const kinds[NKINDS] = {
	"dropped", "duplicated", "reordered", "delayed", "corrupted", "stalls",
};
static const char *const kind_params[NKINDS] = {
	"fault.injected.drop", "fault.injected.dup", "fault.injected.reorder",
	"fault.injected.delay", "fault.injected.corrupt", "fault.injected.stall",
};

/* A backend without the fault model says so in the shell's words. */
static int need_faults(struct dnet_dev *dev, struct dnet_err *e)
{
	if (dnet_param_find(dev, "fault.add", e))
		return 0;
	if (e->code != DNET_ENOENT)
		return -e->code;
	return dnet_seterr(e, DNET_ENOTSUP, "backend '%s' has no fault model (the emulator has: "
			   "sim:..., or remote: to a dnetd serving one)", dnet_dev_backend(dev));
}

/* Where fault_info reads the values (D-PARAM-ALL): all of them, read at once
 * (dnet_param_get_all: one request through dnetd), or one request each
 * (dnet_param_get) from a dnetd before PARAM_ALL. */
struct source {
	struct dnet_dev *dev;
	struct dnet_param_value *vals; /* NULL: one request each */
	unsigned n;
};

static int get_text(const struct source *s, const char *name, char *buf, size_t len, struct dnet_err *e)
{
	if (!s->vals)
		return dnet_param_get(s->dev, name, buf, len, e);
	for (unsigned i = 0; i < s->n; i++)
		if (!strcmp(s->vals[i].name, name)) {
			if (strlen(s->vals[i].value) >= len)
				return dnet_seterr(e, DNET_EINVAL, "parameter '%s': its value does not fit", name);
			strcpy(buf, s->vals[i].value);
			return 0;
		}
	return dnet_seterr(e, DNET_ENOENT, "no parameter '%s' among the backend's", name);
}

static int get_u64(const struct source *s, const char *name, uint64_t *v, struct dnet_err *e)
{
	char buf[32];
	int rc = get_text(s, name, buf, sizeof buf, e);
	return rc ? rc : dnet_parse_u64(buf, UINT64_MAX, v, name, e);
}

static int fault_read(const struct source *src, struct fault_info *fi, char *text, char *fired, struct dnet_err *e)
{
	struct { const char *name; uint64_t *v; } const nums[] = {
		{ "fault.seed", &fi->seed }, { "fault.rto_ns", &fi->rto_ns },
		{ "swif.retransmissions", &fi->retransmissions }, { "swif.timeouts", &fi->timeouts },
		{ "swif.duplicates_dropped", &fi->duplicates_dropped }, { "swif.crc_errors", &fi->crc_errors },
		{ "swif.out_of_sequence", &fi->out_of_sequence }, { "swif.acks_sent", &fi->acks_sent },
		{ "swif.naks_sent", &fi->naks_sent }, { "swif.unacked", &fi->unacked },
	};
	int rc;
	for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++)
		if ((rc = get_u64(src, nums[i].name, nums[i].v, e)))
			return rc;
	for (unsigned k = 0; k < NKINDS; k++)
		if ((rc = get_u64(src, kind_params[k], &fi->injected[k], e)))
			return rc;
	if ((rc = get_text(src, "fault.rules", text, DNET_PARAM_VALUE_MAX, e)) ||
	    (rc = get_text(src, "fault.fired", fired, DNET_PARAM_VALUE_MAX, e)))
		return rc;
	return 0;
}

static int fault_info(struct dnet_dev *dev, struct fault_info *fi, struct dnet_err *e)
{
	static char text[DNET_PARAM_VALUE_MAX], fired[DNET_PARAM_VALUE_MAX];
	struct source src = { .dev = dev };
	int rc;
	memset(fi, 0, sizeof *fi);
	rc = dnet_param_get_all(dev, &src.vals, &src.n, e);
	if (rc && rc != -DNET_ENOTSUP)
		return rc;
	bool model = false;
	for (unsigned i = 0; i < src.n; i++)
		model |= !strcmp(src.vals[i].name, "fault.rules");
	if (!model && (rc = need_faults(dev, e))) { /* one request each: as before */
		free(src.vals);
		return rc;
	}
	rc = fault_read(&src, fi, text, fired, e);
	free(src.vals);
	if (rc)
		return rc;
	char *s1 = NULL, *s2 = NULL;
	char *r = strtok_r(text, "\n", &s1), *f = strtok_r(fired, "\n", &s2);
	for (; r && fi->nrules < NRULES; r = strtok_r(NULL, "\n", &s1), f = f ? strtok_r(NULL, "\n", &s2) : NULL) {
		snprintf(fi->rule[fi->nrules], sizeof fi->rule[0], "%s", r);
		fi->fired[fi->nrules++] = f ? strtoull(f, NULL, 10) : 0;
	}
	return 0;
}

static int fault_show(struct dsh *d)
{
	struct dnet_err e = { 0 };
	struct fault_info fi;
	if (fault_info(d->dev, &fi, &e) < 0)
		return dsh_derr(d, &e);
	char rto[24];
	out_u64(d, "seed", "seed %" PRIu64, fi.seed);
	out_u64(d, "rto_ns", NULL, fi.rto_ns);
	out_str(d, NULL, ", retransmit timeout %s\n", dnet_format_duration(fi.rto_ns, rto, sizeof rto));
	if (!fi.nrules)
		out_text(d, "no rules: packets are neither lost nor damaged\n");
	out_arr_open(d, "rules");
	for (unsigned i = 0; i < fi.nrules; i++) {
		out_obj_open(d, NULL);
		out_u64(d, NULL, "rule %" PRIu64 ": ", i + 1u);
		out_str(d, "rule", "%s", fi.rule[i]);
		out_u64(d, "fired", " (fired %" PRIu64 ")\n", fi.fired[i]);
		out_close(d);
	}
	out_close(d);
	uint64_t total = 0;
	for (unsigned k = 0; k < NKINDS; k++)
		total += fi.injected[k];
	out_u64(d, NULL, "injected %" PRIu64 ":", total); /* the total's key follows the kinds in JSON */
	out_obj_open(d, "injected");
	for (unsigned k = 0; k < NKINDS; k++) {
		out_str(d, NULL, " %s", kinds[k]);
		out_u64(d, kinds[k], k + 1 < NKINDS ? " %" PRIu64 "," : " %" PRIu64 "\n", fi.injected[k]);
	}
	out_close(d);
	out_u64(d, "faults_injected", NULL, total);
	out_u64(d, "retransmissions", "retransmissions %" PRIu64, fi.retransmissions);
	out_u64(d, "retransmit_timeouts", " (retransmit timeouts %" PRIu64 ")", fi.timeouts);
	out_u64(d, "duplicates_dropped", ", duplicates dropped %" PRIu64, fi.duplicates_dropped);
	out_u64(d, "crc_errors", ", crc errors %" PRIu64, fi.crc_errors);
	out_u64(d, "out_of_sequence", ", out of sequence %" PRIu64, fi.out_of_sequence);
	out_u64(d, "acks_sent", ", acks %" PRIu64, fi.acks_sent);
	out_u64(d, "naks_sent", ", naks %" PRIu64, fi.naks_sent);
	out_u64(d, "unacknowledged", ", unacknowledged %" PRIu64 "\n", fi.unacked);
	dsh_set_last(d, total);
	return 0;
}

int cmd_fault(struct dsh *d, struct dsh_args *a)
{
	struct dnet_err e = { 0 };
	if (a->argc == 1 || (a->argc == 2 && !strcmp(a->argv[1], "show")))
		return fault_show(d);
	if (a->argc == 2 && !strcmp(a->argv[1], "clear")) {
		if (need_faults(d->dev, &e) || dnet_param_set(d->dev, "fault.rules", "", &e) < 0)
			return dsh_derr(d, &e);
		out_text(d, "fault rules cleared\n");
		return 0;
	}
	/* The words make one rule (or seed / rto). */
	size_t len = 1;
	for (int i = 1; i < a->argc; i++)
		len += strlen(a->argv[i]) + 1;
	char *rule = malloc(len), *p = rule;
	if (!rule)
		return dsh_error(d, "out of memory");
	for (int i = 1; i < a->argc; i++) {
		if (strpbrk(a->argv[i], "+;:")) {
			free(rule);
			return dsh_error(d, "fault: one rule per command ('%s': no ':', '+' or ';' here)",
					 a->argv[i]);
		}
		size_t l = strlen(a->argv[i]);
		memcpy(p, a->argv[i], l);
		p += l;
		*p++ = i + 1 < a->argc ? ' ' : '\0';
	}
	int rc = need_faults(d->dev, &e);
	if (!rc)
		rc = dnet_param_set(d->dev, "fault.add", rule, &e);
	if (rc < 0) {
		free(rule);
		return dsh_derr(d, &e);
	}
	out_str(d, "added", "fault: %s\n", rule);
	free(rule);
	return 0;
}
