/* sim: the emulator's parameters (dnet/param.h) -- its fault rules and
 * what retransmission made of them (faults.c), and its step costs
 * (timing.c) for whoever models host time beside it.  The rule words are
 * those of the spec option faults=... (faults.c describes them).
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "dnet/parse.h"
#include "sim/sim.h"

/* Every step cost of struct sim_timing, by field name. */
#define TIMING_FIELDS \
	T(clk_ns) \
	T(host_uc_read_ns) \
	T(host_uc_write_ns) \
	T(host_bus_line_ns) \
	T(host_wc_drain_ns) \
	T(host_wb_miss_ns) \
	T(host_l2_8b_ns) \
	T(host_l2_bytes) \
	T(host_l2_ways) \
	T(host_page_bytes) \
	T(host_clflush_64b_ns) \
	T(cfg_forward_clk) \
	T(acc_clk) \
	T(acc_pre_clk) \
	T(botf_setup_clk) \
	T(botf_end_clk) \
	T(line_clk) \
	T(pu_first_clk) \
	T(pu_8b_ns) \
	T(pu_burst_lines) \
	T(sd_contend_8b_ps) \
	T(sd_collide_ns) \
	T(pu_elem_clk) \
	T(pu_list_clk) \
	T(wu_setup_clk) \
	T(wu_write_clk) \
	T(rvs_setup_clk) \
	T(rvs_pkt_gap_clk) \
	T(rvl_clk) \
	T(end_clk) \
	T(swif_ns) \
	T(switch_ns) \
	T(rc_hdr_clk) \
	T(rc_req_clk) \
	T(rc_status_clk) \
	T(ipush_amt_clk) \
	T(lh_entry_clk) \
	T(sdimm_init_ns) \
	T(sma_up_ns) \
	T(sma_reset_ns)

enum {
	P_ADD, P_RULES, P_FIRED, P_SEED, P_RTO,
	P_INJ0,                                     /* fault.injected.KIND, SIM_FK_COUNT of them */
	P_SWIF0 = P_INJ0 + SIM_FK_COUNT,            /* swif.*, NSWIF of them */
	NSWIF = 8,
	P_TIMING0 = P_SWIF0 + NSWIF,                /* timing.*, in TIMING_FIELDS order */
};

#define RO DNET_PARAM_RO
#define U64 DNET_PARAM_U64
#define TXT DNET_PARAM_TEXT
#define T(f) { "timing." #f, U64, 0, "the emulator's step cost " #f " (docs/timing-model.md); set: a what-if " \
		      "of the model (bench timing.NAME=VALUE)" },

static const struct dnet_param params[] = {
	[P_ADD] = { "fault.add", TXT, DNET_PARAM_WO,
		    "add fault rules (KIND [RATE] [from N] [to N] [for DUR] [nth K] [every K] [count C] "
		    "[data|acks]; seed N; rto DUR), ';' between rules" },
	[P_RULES] = { "fault.rules", TXT, 0,
		      "the fault rules, one a line; setting replaces them all ('' clears them; what is "
		      "unacknowledged is still retransmitted)" },
	[P_FIRED] = { "fault.fired", TXT, RO, "how often each rule fired, one count a line" },
	[P_SEED] = { "fault.seed", U64, 0, "the seed of the faults' PRNG; setting it restarts the sequence" },
	[P_RTO] = { "fault.rto_ns", U64, 0, "SWIF's retransmit timeout in ns (100-1000000000)" },
	[P_INJ0 + SIM_FK_DROP] = { "fault.injected.drop", U64, RO, "packets dropped by a rule" },
	[P_INJ0 + SIM_FK_DUP] = { "fault.injected.dup", U64, RO, "packets duplicated by a rule" },
	[P_INJ0 + SIM_FK_REORDER] = { "fault.injected.reorder", U64, RO, "packets reordered by a rule" },
	[P_INJ0 + SIM_FK_DELAY] = { "fault.injected.delay", U64, RO, "packets delayed by a rule" },
	[P_INJ0 + SIM_FK_CORRUPT] = { "fault.injected.corrupt", U64, RO, "packets corrupted by a rule" },
	[P_INJ0 + SIM_FK_STALL] = { "fault.injected.stall", U64, RO, "receiver stalls by a rule" },
	[P_SWIF0 + 0] = { "swif.retransmissions", U64, RO, "packets SWIF sent again (all nodes)" },
	[P_SWIF0 + 1] = { "swif.timeouts", U64, RO, "retransmissions after the timeout rather than a NAK" },
	[P_SWIF0 + 2] = { "swif.duplicates_dropped", U64, RO, "packets received twice, dropped" },
	[P_SWIF0 + 3] = { "swif.crc_errors", U64, RO, "packets received damaged, dropped" },
	[P_SWIF0 + 4] = { "swif.out_of_sequence", U64, RO, "packets received ahead of a lost one" },
	[P_SWIF0 + 5] = { "swif.acks_sent", U64, RO, "ACK packets sent" },
	[P_SWIF0 + 6] = { "swif.naks_sent", U64, RO, "NAK packets sent" },
	[P_SWIF0 + 7] = { "swif.unacked", U64, RO, "packets sent and not yet acknowledged" },
	TIMING_FIELDS
};
#undef T

#define NPARAMS (sizeof params / sizeof params[0])

const struct dnet_param *sim_params(struct dnet_dev *dev, unsigned *n, struct dnet_err *err)
{
	(void)dev;
	(void)err;
	*n = NPARAMS;
	return params;
}

/* The SWIF counters, summed over the nodes, in params[] order. */
static uint64_t swif_sum(const struct sim *s, unsigned k)
{
	static const unsigned st[NSWIF - 1] = {
		ST_RETRANSMITS, ST_RETX_TIMEOUTS, ST_DUPS_DROPPED, ST_CRC_ERRORS, ST_OUT_OF_SEQ,
		ST_ACKS_SENT, ST_NAKS_SENT,
	};
	uint64_t v = 0;
	for (unsigned i = 0; i < s->nnodes; i++) {
		const struct sim_node *n = s->node[i];
		if (n)
			v += k < NSWIF - 1 ? n->st[st[k]] : n->swif.used;
	}
	return v;
}

static uint64_t timing_value(const struct sim_timing *t, unsigned k)
{
	unsigned i = 0;
#define T(f) if (i++ == k) return t->f;
	TIMING_FIELDS
#undef T
	return 0;
}

/* Set step cost k (a what-if of the model, e.g. the bench's sensitivity
 * table): refused when the value does not fit the field. */
static int timing_set(struct sim_timing *t, unsigned k, uint64_t v, const char *name, struct dnet_err *err)
{
	unsigned i = 0;
#define T(f)                                                                                                    \
	if (i++ == k) {                                                                                         \
		if (v > (__typeof__(t->f))-1)                                                                   \
			return dnet_seterr(err, DNET_ERANGE, "sim: %s: %" PRIu64 " does not fit (at most %" PRIu64 ")", \
					   name, v, (uint64_t)(__typeof__(t->f))-1);                            \
		t->f = (__typeof__(t->f))v;                                                                     \
		return 0;                                                                                       \
	}
	TIMING_FIELDS
#undef T
	return dnet_seterr(err, DNET_EINVAL, "sim: no step cost '%s'", name);
}

static int fits(int w, size_t room, const struct dnet_param *p, size_t len, struct dnet_err *err)
{
	if (w < 0 || (size_t)w >= room)
		return dnet_seterr(err, DNET_EINVAL, "sim: %s does not fit in %zu bytes", p->name, len);
	return 0;
}

int sim_param_get(struct dnet_dev *dev, const struct dnet_param *p, char *buf, size_t len,
		  struct dnet_err *err)
{
	const struct sim *s = dev->priv;
	const struct sim_faults *f = &s->faults;
	unsigned k = (unsigned)(p - params);
	uint64_t v = 0;
	size_t used = 0;
	int rc;
	if (k == P_RULES || k == P_FIRED) {
		for (unsigned i = 0; i < f->nrules; i++) {
			char one[160];
			if (k == P_RULES)
				sim_faults_rule_text(&f->rule[i], one, sizeof one);
			else
				snprintf(one, sizeof one, "%" PRIu64, f->rule[i].fired);
			int w = snprintf(buf + used, len - used, "%s%s", i ? "\n" : "", one);
			if ((rc = fits(w, len - used, p, len, err)))
				return rc;
			used += (size_t)w;
		}
		return 0;
	}
	if (k == P_SEED)
		v = f->seed;
	else if (k == P_RTO)
		v = sim_faults_rto(s);
	else if (k >= P_INJ0 && k < P_INJ0 + SIM_FK_COUNT)
		v = f->injected[k - P_INJ0];
	else if (k >= P_SWIF0 && k < P_SWIF0 + NSWIF)
		v = swif_sum(s, k - P_SWIF0);
	else if (k >= P_TIMING0 && k < NPARAMS)
		v = timing_value(&s->t, k - P_TIMING0);
	else
		return dnet_seterr(err, DNET_ENOTSUP, "sim: parameter '%s' cannot be read", p->name);
	return fits(snprintf(buf, len, "%" PRIu64, v), len, p, len, err);
}

int sim_param_set(struct dnet_dev *dev, const struct dnet_param *p, const char *value,
		  struct dnet_err *err)
{
	struct sim *s = dev->priv;
	struct sim_faults *f = &s->faults;
	char text[64];
	switch (p - params) {
	case P_ADD:
		return sim_faults_parse(f, value, err);
	case P_RULES: {
		/* All or nothing: the new rules parse before the old ones go;
		 * packets still unacknowledged keep being retransmitted. */
		struct sim_faults nf = *f;
		nf.nrules = 0;
		int rc = sim_faults_parse(&nf, value, err);
		if (rc == 0)
			*f = nf;
		return rc;
	}
	case P_SEED:
		snprintf(text, sizeof text, "seed %s", value);
		return sim_faults_parse(f, text, err);
	case P_RTO:
		snprintf(text, sizeof text, "rto %sns", value);
		return sim_faults_parse(f, text, err);
	default:
		if ((size_t)(p - params) >= P_TIMING0 && (size_t)(p - params) < NPARAMS) {
			uint64_t v;
			int rc = dnet_parse_u64(value, UINT64_MAX, &v, p->name, err);
			return rc ? rc : timing_set(&s->t, (unsigned)(p - params) - P_TIMING0, v, p->name, err);
		}
		return dnet_seterr(err, DNET_EPERM, "sim: parameter '%s' cannot be set", p->name);
	}
}
