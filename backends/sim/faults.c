/* sim: the fault model of the emulated switch -- rules that drop,
 * duplicate, reorder, delay and corrupt packets and stall a receiver, per
 * link, by rate or by rule; seeded and reproducible (Decision
 * D-SIM-FAULTS, docs/decisions.md).
 *
 * The rule language (the spec option faults=... and the fault.*
 * parameters, params.c, read the same words; in a spec, ':' separates words
 * and '+' rules, since ',' ends the option):
 *
 *   KIND [RATE] [from N] [to N] [for DUR] [nth K] [every K] [count C] [data|acks]
 *   seed N        the PRNG seed (default 0); restarts the sequence
 *   rto DUR       SWIF's retransmit timeout (default 16384ns)
 *
 * KIND is drop, dup, reorder, delay, corrupt or stall.  RATE is "5%",
 * "0.5%", "1/20" or a fraction "0.05" of the matching packets (default:
 * every one, or only those nth/every name).  from/to name the link by its
 * end nodes (default any); data/acks restrict a rule to data packets or to
 * SWIF's ACK/NAK packets.  for DUR: how much later a reordered packet (3us)
 * or a delayed link (2us) delivers, when a duplicate follows its original
 * (100ns), how long a stalled receiver takes nothing (20us).
 *
 * Nothing else in the emulator knows faults exist: switch.c asks
 * sim_faults_apply() what happens to each transmission, and retransmits.
 * The PRNG is the emulator's own (splitmix64), drawn only for rules with a
 * rate, in the deterministic order of the event queue, so the same spec and
 * seed give the same faults every run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dnet/parse.h"
#include "sim/sim.h"

#define DEFAULT_RTO_NS 16384u /* InfiniBand's 4.096 us x 2^2 Local ACK Timeout */

_Static_assert(ST_F_STALL - ST_F_DROP == SIM_FK_STALL, "per-kind statistics in enum sim_fault_kind order");

static const char *const kind_names[SIM_FK_COUNT] = {
	"drop", "dup", "reorder", "delay", "corrupt", "stall",
};
static const uint64_t kind_dur[SIM_FK_COUNT] = { 0, 100, 3000, 2000, 0, 20000 };

const char *sim_fault_kind_name(enum sim_fault_kind k)
{
	return (unsigned)k < SIM_FK_COUNT ? kind_names[k] : "?";
}

/* struct sim is calloc'ed: all zero is the default (seed 0, rto 0 = the
 * default timeout, no rules). */
uint64_t sim_faults_rto(const struct sim *s)
{
	return s->faults.rto_ns ? s->faults.rto_ns : DEFAULT_RTO_NS;
}

/* splitmix64 (Steele, Lea, Flood 2014): the emulator's own PRNG. */
static uint64_t frand(struct sim_faults *f)
{
	uint64_t z = (f->rng += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static bool rule_fires(struct sim_faults *f, struct sim_fault_rule *r)
{
	if (r->count && r->fired >= r->count)
		return false;
	r->seen++;
	if (r->nth && r->seen != r->nth)
		return false;
	if (r->every && r->seen % r->every)
		return false;
	if (r->ppm < SIM_FAULT_PPM && frand(f) % SIM_FAULT_PPM >= r->ppm)
		return false;
	r->fired++;
	return true;
}

void sim_faults_apply(struct sim *s, struct sim_node *from, unsigned to, bool ack,
		      struct sim_fault_fx *fx)
{
	struct sim_faults *f = &s->faults;
	memset(fx, 0, sizeof *fx);
	for (unsigned i = 0; i < f->nrules; i++) {
		struct sim_fault_rule *r = &f->rule[i];
		if ((r->from && r->from != from->id) || (r->to && r->to != to) ||
		    (r->what == 1 && ack) || (r->what == 2 && !ack))
			continue;
		if (!rule_fires(f, r))
			continue;
		f->injected[r->kind]++;
		from->st[ST_FAULTS]++;
		from->st[ST_F_DROP + r->kind]++;
		switch (r->kind) {
		case SIM_FK_DROP: fx->drop = true; break;
		case SIM_FK_DUP: fx->dup = true; fx->dup_ns = r->dur_ns; break;
		case SIM_FK_REORDER: fx->extra_ns += r->dur_ns; break;
		case SIM_FK_DELAY: fx->hold_ns += r->dur_ns; break;
		case SIM_FK_CORRUPT: fx->corrupt = true; fx->corrupt_rand = frand(f); break;
		case SIM_FK_STALL: fx->stall_ns += r->dur_ns; break;
		case SIM_FK_COUNT: break;
		}
	}
}

/* ---- the rule language ---- */

/* "5%", "0.5%", "1/20", "0.05", "1" -> parts per million. */
static int parse_rate(const char *w, uint32_t *ppm)
{
	char *end;
	if (strchr(w, '/')) {
		unsigned long a = strtoul(w, &end, 10), b;
		if (end == w || *end != '/')
			return -1;
		const char *q = end + 1;
		b = strtoul(q, &end, 10);
		if (end == q || *end || !b || a > b)
			return -1;
		*ppm = (uint32_t)((uint64_t)a * SIM_FAULT_PPM / b);
		return 0;
	}
	if (!(*w >= '0' && *w <= '9') && *w != '.')
		return -1;
	double v = strtod(w, &end);
	if (end == w)
		return -1;
	if (*end == '%' && !end[1])
		v /= 100.0;
	else if (*end)
		return -1;
	if (!(v >= 0.0 && v <= 1.0))
		return -1;
	*ppm = (uint32_t)(v * SIM_FAULT_PPM + 0.5);
	return 0;
}

static bool is_sep(char c)
{
	return c == ':' || c == ' ' || c == '\t';
}

/* Split one rule into words (at most max). */
static unsigned split_words(char *rule, char **w, unsigned max)
{
	unsigned n = 0;
	char *p = rule;
	while (*p) {
		while (is_sep(*p))
			*p++ = '\0';
		if (!*p)
			break;
		if (n == max)
			return max + 1;
		w[n++] = p;
		while (*p && !is_sep(*p))
			p++;
	}
	return n;
}

static int need_arg(char **w, unsigned i, unsigned n, struct dnet_err *err)
{
	if (i + 1 >= n)
		return dnet_seterr(err, DNET_EINVAL, "faults: '%s' needs a value", w[i]);
	return 0;
}

static int parse_rule(struct sim_faults *f, char *text, struct dnet_err *err)
{
	char *w[24];
	unsigned n = split_words(text, w, 24);
	if (n == 0)
		return 0;
	if (n > 24)
		return dnet_seterr(err, DNET_EINVAL, "faults: too many words in one rule");
	uint64_t v;
	int rc;
	if (!strcmp(w[0], "seed") || !strcmp(w[0], "rto")) {
		if (n != 2)
			return dnet_seterr(err, DNET_EINVAL, "faults: '%s' takes one value", w[0]);
		if (w[0][0] == 's') {
			if ((rc = dnet_parse_u64(w[1], UINT64_MAX, &v, "faults: seed", err)))
				return rc;
			f->seed = f->rng = v;
			return 0;
		}
		if ((rc = dnet_parse_duration(w[1], &v, "faults: rto", err)))
			return rc;
		if (v < 100 || v > 1000000000ull)
			return dnet_seterr(err, DNET_EINVAL, "faults: rto %s out of range (100ns-1s)", w[1]);
		f->rto_ns = v;
		return 0;
	}
	struct sim_fault_rule r = { 0 };
	unsigned k;
	for (k = 0; k < SIM_FK_COUNT && strcmp(w[0], kind_names[k]); k++)
		;
	if (k == SIM_FK_COUNT)
		return dnet_seterr(err, DNET_EINVAL, "faults: unknown kind '%s' (drop, dup, reorder, delay, "
				   "corrupt, stall; or seed N, rto DUR)", w[0]);
	r.kind = (enum sim_fault_kind)k;
	r.dur_ns = kind_dur[k];
	r.ppm = SIM_FAULT_PPM;
	bool rate = false;
	for (unsigned i = 1; i < n; i++) {
		const char *a = w[i];
		if (!strcmp(a, "from") || !strcmp(a, "to")) {
			if ((rc = need_arg(w, i, n, err)) ||
			    (rc = dnet_parse_u64(w[++i], SIM_MAX_NODES, &v, a, err)))
				return rc;
			if (!v)
				return dnet_seterr(err, DNET_EINVAL, "faults: %s 0: nodes are 1-%u", a, SIM_MAX_NODES);
			*(a[0] == 'f' ? &r.from : &r.to) = (unsigned)v;
		} else if (!strcmp(a, "for")) {
			if ((rc = need_arg(w, i, n, err)) ||
			    (rc = dnet_parse_duration(w[++i], &r.dur_ns, "faults: for", err)))
				return rc;
			if (r.dur_ns > 1000000000000ull)
				return dnet_seterr(err, DNET_EINVAL, "faults: for %s is over 1000 s", w[i]);
		} else if (!strcmp(a, "nth") || !strcmp(a, "every") || !strcmp(a, "count")) {
			if ((rc = need_arg(w, i, n, err)) ||
			    (rc = dnet_parse_u64(w[++i], UINT64_MAX, &v, a, err)))
				return rc;
			if (!v)
				return dnet_seterr(err, DNET_EINVAL, "faults: %s 0 never fires", a);
			*(a[0] == 'n' ? &r.nth : a[0] == 'e' ? &r.every : &r.count) = v;
		} else if (!strcmp(a, "data") || !strcmp(a, "acks")) {
			r.what = a[0] == 'd' ? 1 : 2;
		} else if (parse_rate(a, &r.ppm) == 0) {
			if (rate)
				return dnet_seterr(err, DNET_EINVAL, "faults: a second rate '%s' in a %s rule", a,
						   kind_names[k]);
			rate = true;
		} else {
			return dnet_seterr(err, DNET_EINVAL, "faults: '%s' in a %s rule is not a rate (5%%, 1/20, "
					   "0.05), from N, to N, for DUR, nth K, every K, count C, data or acks",
					   a, kind_names[k]);
		}
	}
	if (r.kind == SIM_FK_STALL && !r.dur_ns)
		return dnet_seterr(err, DNET_EINVAL, "faults: a stall needs a duration (for DUR)");
	if (f->nrules == SIM_FAULT_RULES)
		return dnet_seterr(err, DNET_EINVAL, "faults: at most %u rules", SIM_FAULT_RULES);
	f->rule[f->nrules++] = r;
	return 0;
}

int sim_faults_parse(struct sim_faults *f, const char *text, struct dnet_err *err)
{
	struct sim_faults nf = *f; /* all or nothing */
	char buf[1024];
	if (strlen(text) >= sizeof buf)
		return dnet_seterr(err, DNET_EINVAL, "faults: rules longer than %zu bytes", sizeof buf - 1);
	strcpy(buf, text);
	char *save = NULL;
	for (char *r = strtok_r(buf, "+;\n", &save); r; r = strtok_r(NULL, "+;\n", &save)) {
		int rc = parse_rule(&nf, r, err);
		if (rc)
			return rc;
	}
	*f = nf;
	return 0;
}

void sim_faults_rule_text(const struct sim_fault_rule *r, char *buf, size_t n)
{
	char dur[32], tmp[64];
	size_t len = 0;
#define ADD(...) do { int k_ = snprintf(buf + len, len < n ? n - len : 0, __VA_ARGS__); \
		if (k_ > 0) len += (size_t)k_; } while (0)
	ADD("%s", sim_fault_kind_name(r->kind));
	if (r->ppm < SIM_FAULT_PPM) {
		snprintf(tmp, sizeof tmp, "%.4f", r->ppm / 10000.0);
		char *e = tmp + strlen(tmp) - 1;
		while (*e == '0')
			*e-- = '\0';
		if (*e == '.')
			*e = '\0';
		ADD(" %s%%", tmp);
	}
	if (r->from)
		ADD(" from %u", r->from);
	if (r->to)
		ADD(" to %u", r->to);
	if (r->kind != SIM_FK_DROP && r->kind != SIM_FK_CORRUPT)
		ADD(" for %s", dnet_format_duration(r->dur_ns, dur, sizeof dur));
	if (r->nth)
		ADD(" nth %llu", (unsigned long long)r->nth);
	if (r->every)
		ADD(" every %llu", (unsigned long long)r->every);
	if (r->count)
		ADD(" count %llu", (unsigned long long)r->count);
	if (r->what)
		ADD(" %s", r->what == 1 ? "data" : "acks");
#undef ADD
}
