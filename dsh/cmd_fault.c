/* dsh: the fault command -- faults in the emulated switch (backends/sim/
 * faults.c) and what SWIF's retransmission made of them.
 *
 *   fault                       rules, seed, timeout, counters
 *   fault KIND [RATE] [from N] [to N] [for DUR] [nth K] [every K] [count C] [data|acks]
 *   fault seed N | fault rto DUR
 *   fault clear
 *
 * The rule words are the emulator's own (sim:...,faults=... reads the same,
 * with ':' between words); only the in-process emulator has faults.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "dsh.h"
#include "sim/faults.h"

static const char *const kinds[SIM_FAULT_INFO_KINDS] = {
	"dropped", "duplicated", "reordered", "delayed", "corrupted", "stalls",
};

static int fault_show(struct dsh *d)
{
	struct dnet_err e = { 0 };
	struct sim_fault_info fi;
	if (sim_fault_info(d->dev, &fi, &e) < 0)
		return dsh_derr(d, &e);
	cJSON *res = out_res(d);
	char rto[24];
	jnum(res, "seed", fi.seed);
	jnum(res, "rto_ns", fi.rto_ns);
	cJSON *ra = res ? cJSON_AddArrayToObject(res, "rules") : NULL;
	out_text(d, "seed %" PRIu64 ", retransmit timeout %s\n", fi.seed,
		 dnet_format_duration(fi.rto_ns, rto, sizeof rto));
	if (!fi.nrules)
		out_text(d, "no rules: packets are neither lost nor damaged\n");
	for (unsigned i = 0; i < fi.nrules; i++) {
		out_text(d, "rule %u: %s (fired %" PRIu64 ")\n", i + 1, fi.rule[i], fi.fired[i]);
		cJSON *o = ra ? cJSON_CreateObject() : NULL;
		if (o) {
			jstr(o, "rule", fi.rule[i]);
			jnum(o, "fired", fi.fired[i]);
			cJSON_AddItemToArray(ra, o);
		}
	}
	uint64_t total = 0;
	for (unsigned k = 0; k < SIM_FAULT_INFO_KINDS; k++)
		total += fi.injected[k];
	out_text(d, "injected %" PRIu64 ":", total);
	cJSON *inj = res ? cJSON_AddObjectToObject(res, "injected") : NULL;
	for (unsigned k = 0; k < SIM_FAULT_INFO_KINDS; k++) {
		out_text(d, " %s %" PRIu64 "%s", kinds[k], fi.injected[k], k + 1 < SIM_FAULT_INFO_KINDS ? "," : "\n");
		jnum(inj, kinds[k], fi.injected[k]);
	}
	out_text(d, "retransmissions %" PRIu64 " (timeouts %" PRIu64 "), duplicates dropped %" PRIu64
		 ", crc errors %" PRIu64 ", out of sequence %" PRIu64 ", acks %" PRIu64 ", naks %" PRIu64
		 ", unacknowledged %" PRIu64 "\n",
		 fi.retransmissions, fi.timeouts, fi.duplicates_dropped, fi.crc_errors, fi.out_of_sequence,
		 fi.acks_sent, fi.naks_sent, fi.unacked);
	jnum(res, "faults_injected", total);
	jnum(res, "retransmissions", fi.retransmissions);
	jnum(res, "retransmit_timeouts", fi.timeouts);
	jnum(res, "duplicates_dropped", fi.duplicates_dropped);
	jnum(res, "crc_errors", fi.crc_errors);
	jnum(res, "out_of_sequence", fi.out_of_sequence);
	jnum(res, "acks_sent", fi.acks_sent);
	jnum(res, "naks_sent", fi.naks_sent);
	jnum(res, "unacknowledged", fi.unacked);
	dsh_set_last(d, total);
	return 0;
}

int cmd_fault(struct dsh *d, struct dsh_args *a)
{
	struct dnet_err e = { 0 };
	if (a->argc == 1 || (a->argc == 2 && !strcmp(a->argv[1], "show")))
		return fault_show(d);
	if (a->argc == 2 && !strcmp(a->argv[1], "clear")) {
		if (sim_fault_clear(d->dev, &e) < 0)
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
	int rc = sim_fault_add(d->dev, rule, &e);
	if (rc < 0) {
		free(rule);
		return dsh_derr(d, &e);
	}
	jstr(out_res(d), "added", rule);
	out_text(d, "fault: %s\n", rule);
	free(rule);
	return 0;
}
