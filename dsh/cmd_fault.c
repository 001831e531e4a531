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
	for (unsigned k = 0; k < SIM_FAULT_INFO_KINDS; k++)
		total += fi.injected[k];
	out_u64(d, NULL, "injected %" PRIu64 ":", total); /* the total's key follows the kinds in JSON */
	out_obj_open(d, "injected");
	for (unsigned k = 0; k < SIM_FAULT_INFO_KINDS; k++) {
		out_str(d, NULL, " %s", kinds[k]);
		out_u64(d, kinds[k], k + 1 < SIM_FAULT_INFO_KINDS ? " %" PRIu64 "," : " %" PRIu64 "\n", fi.injected[k]);
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
	out_str(d, "added", "fault: %s\n", rule);
	free(rule);
	return 0;
}
