/* dsh bench E8: the IPUSH receive-area reduction of Table 7.3 [§7.1.4]
 * by trace analysis (docs/timing-model.md E8), no emulator.
 *
 * For every application: P = the largest number of distinct partners of
 * any process; PUSH keeps one ring per possible sender (ranks x N), IPUSH
 * one private ring per partner and one shared ring for the rest
 * ((P + 1) x N); ratio = (P + 1) / ranks.
 *
 * The messages come either from trace files (traces=FILE|DIR, the text
 * format below) or from built-in generators of the point-to-point traffic
 * of NPB 3.x MPI, Class A, in the timed region of each benchmark, derived
 * from the decomposition and communication code of the NPB 3.3 MPI
 * sources (the routine is named at each generator).  P is always counted
 * from the generated message list, never written down.
 *
 * Trace format (docs/timing-model.md "E8"), one message per line:
 *     src dst bytes        # decimal; src, dst in [0, ranks); '#' starts a comment
 * or SimGrid's time-independent format ("[p]RANK ACTION ARGS", see
 * ti_action), told apart by the first line with data.  A directory holds
 * one file per application, named after the file (the part before the
 * first '.'), in name order.
 *
 * What counts as a partner (docs/decisions.md D-BENCH-E8-*):
 *  - partners=recv (default): the distinct senders of a process -- IPUSH
 *    gives a ring to a *sender* (§7.1.3: the AMT Address Table is indexed by
 *    the sending process's ID); partners=any: senders and receivers.
 *  - A message to oneself is no partner (CG's diagonal transpose).
 *  - coll=binomial (default): MPI collectives are traffic too, as the MPI
 *    library sends them point to point (§7.1.4 says IS's partner count
 *    "depends on the implementation of MPI_Alltoall and MPI_Reduce", so
 *    the thesis counted them), by MPICH-1's algorithms -- the only MPI
 *    family the thesis names: Allreduce as binomial Reduce to rank 0 +
 *    binomial Bcast, pairwise Alltoall(v); coll=rd: recursive-doubling
 *    Allreduce (MPICH2's algorithm for short messages; with a number of
 *    ranks that is no power of two: binomial Reduce + Bcast); the timed
 *    regions have no other collective (MPI_Reduce of the timings, Bcast of
 *    the inputs and Barriers lie outside them).  coll=none leaves
 *    collectives out (only the application's own sends).  Which MPI the
 *    thesis's traces ran on is not stated.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include "bench.h"

#define E8_MAX_RANKS 4096u

struct e8_msg {
	uint32_t src, dst;
	uint64_t bytes;
};

struct e8_trace {
	struct e8_msg *m;
	size_t n, cap;
	unsigned ranks;
	int coll;             /* BENCH_E8_COLL_*: how collectives become point-to-point */
	bool oom;
};

static void msg(struct e8_trace *t, unsigned src, unsigned dst, uint64_t bytes)
{
	if (t->oom)
		return;
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 4096;
		struct e8_msg *m = realloc(t->m, cap * sizeof *m);
		if (!m) {
			t->oom = true;
			return;
		}
		t->m = m;
		t->cap = cap;
	}
	t->m[t->n++] = (struct e8_msg){ src, dst, bytes };
}

static bool pow2(unsigned n) { return n && !(n & (n - 1)); }

static unsigned ilog2u(unsigned n)
{
	unsigned l = 0;
	while (n > 1) {
		n >>= 1;
		l++;
	}
	return l;
}

/* ---- collectives over point-to-point (coll=rd|binomial), MPICH's algorithms ---- */

/* Binomial tree rooted at root: the parent of relative rank rr is rr with
 * its lowest set bit cleared.  up: children send to parents (Reduce). */
static void coll_tree(struct e8_trace *t, unsigned root, uint64_t bytes, bool up)
{
	unsigned p = t->ranks;
	for (unsigned rr = 1; rr < p; rr++) {
		unsigned parent = rr & (rr - 1);
		unsigned a = (rr + root) % p, b = (parent + root) % p;
		if (up)
			msg(t, a, b, bytes);
		else
			msg(t, b, a, bytes);
	}
}

static void coll_allreduce(struct e8_trace *t, uint64_t bytes)
{
	if (t->coll == BENCH_E8_COLL_NONE)
		return;
	if (t->coll == BENCH_E8_COLL_BINOMIAL || !pow2(t->ranks)) {
		coll_tree(t, 0, bytes, true);
		coll_tree(t, 0, bytes, false);
		return;
	}
	for (unsigned mask = 1; mask < t->ranks; mask <<= 1)
		for (unsigned r = 0; r < t->ranks; r++)
			msg(t, r, r ^ mask, bytes);
}

static void coll_alltoall(struct e8_trace *t, uint64_t bytes)
{
	if (t->coll == BENCH_E8_COLL_NONE)
		return;
	for (unsigned r = 0; r < t->ranks; r++)
		for (unsigned q = 0; q < t->ranks; q++)
			if (q != r)
				msg(t, r, q, bytes);
}

/* ---- NPB 3.3 MPI, Class A ---- */

/* IS, is.c rank(): per iteration MPI_Allreduce of the bucket sizes
 * (NUM_BUCKETS = 2^10 ints), MPI_Alltoall of the send counts (1 int) and
 * MPI_Alltoallv of the keys (2^23 keys spread over ranks^2 pairs).  The
 * application sends nothing point to point in the timed region
 * (full_verify's neighbour exchange comes after timer_stop). */
static int gen_is(struct e8_trace *t, char *err, size_t errlen)
{
	if (!pow2(t->ranks)) {
		snprintf(err, errlen, "IS needs a power-of-two number of ranks (is.c), not %u", t->ranks);
		return -1;
	}
	uint64_t p = t->ranks;
	coll_allreduce(t, 4u << 10);
	coll_alltoall(t, 4);
	coll_alltoall(t, ((uint64_t)4 << 23) / (p * p));
	return 0;
}

/* CG, cg.f: setparams.c gives num_proc_cols = 2^ceil(log2(p)/2),
 * num_proc_rows = p / num_proc_cols; setup_submatrix_info() gives the row
 * reduction partners reduce_exch_proc(1..l2npcols) and the transpose
 * partner exch_proc; conj_grad() exchanges with them: the matrix-vector
 * row sums (na/nprows doubles), the transpose (send_len doubles) and the
 * dot products (1 double, twice per iteration, hand-coded "equivalent to
 * mpi_allreduce"); the main loop's norms use the same partners.  Na = 14000
 * for Class A.  No MPI collective in the timed region. */
static int gen_cg(struct e8_trace *t, char *err, size_t errlen)
{
	unsigned p = t->ranks;
	if (!pow2(p)) {
		snprintf(err, errlen, "CG needs a power-of-two number of ranks (cg.f setup_proc_info), not %u", p);
		return -1;
	}
	unsigned lg = ilog2u(p), rows = 1u << (lg / 2), cols = p / rows;
	const uint64_t na = 14000;
	unsigned l2npcols = ilog2u(cols);
	for (unsigned me = 0; me < p; me++) {
		unsigned prow = me / cols, pcol = me % cols;
		uint64_t len = na / rows * 8;
		unsigned div = cols;
		for (unsigned i = 1; i <= l2npcols; i++, div /= 2) {
			unsigned j = (pcol + div / 2) % div + pcol / div * div;
			unsigned partner = prow * cols + j;
			msg(t, me, partner, len);   /* q = A.p row sums */
			msg(t, me, partner, 8);     /* d = p.q */
			msg(t, me, partner, 8);     /* rho = r.r */
		}
		if (l2npcols) {
			unsigned ex = cols == rows ? (me % rows) * rows + me / rows
						   : 2 * ((me / 2) % rows * rows + me / 2 / rows) + me % 2;
			msg(t, me, ex, cols == rows ? len : len / 2);
		}
	}
	return 0;
}

/* MG, mg.f setup(): a pi(1) x pi(2) x pi(3) process grid (log2 p split 
 * dx = log_p/3, dy = (log_p-dx)/2, the rest in z); on every level k the
 * neighbour distance next(ax) doubles once a process's or its next
 * neighbour's share of the grid is empty (mi or mip = 2), dead(k) marks a
 * process without points, give_ex/take_ex the processes that hand coarse
 * points to the finer level.  mg3P() calls comm3 (give3: to nbr(ax,+1,k)
 * and nbr(ax,-1,k), one face) on every level 1..lt and comm3_ex (give3_ex,
 * interp) on levels 2..lt; norm2u3() two MPI_Allreduce of 1 double.
 * Class A: 256^3, lt = 8, 4 iterations (one is generated; P is the same). */
#define MG_LT 8
static int gen_mg(struct e8_trace *t, char *err, size_t errlen)
{
	unsigned p = t->ranks;
	if (!pow2(p)) {
		snprintf(err, errlen, "MG needs a power-of-two number of ranks (mg.f setup), not %u", p);
		return -1;
	}
	int log_p = (int)ilog2u(p), dx = log_p / 3, dy = (log_p - dx) / 2;
	int pi[3] = { 1 << dx, 1 << dy, 0 };
	pi[2] = (int)p / (pi[0] * pi[1]);
	int ng[MG_LT + 1];
	ng[MG_LT] = 256;
	for (int k = MG_LT - 1; k >= 1; k--)
		ng[k] = ng[k + 1] / 2;
	for (unsigned me = 0; me < p; me++) {
		int idi[3] = { (int)me % pi[0], ((int)me / pi[0]) % pi[1], (int)me / (pi[0] * pi[1]) };
		int next[3] = { 1, 1, 1 };
		int mi[3][MG_LT + 2], nbr[3][2][MG_LT + 1];
		bool dead[MG_LT + 2] = { false }, give_ex[3][MG_LT + 2];
		memset(give_ex, 0, sizeof give_ex);
		for (int k = MG_LT; k >= 1; k--) {
			for (int ax = 0; ax < 3; ax++) {
				mi[ax][k] = 2 + ((idi[ax] + 1) * ng[k]) / pi[ax] - (idi[ax] * ng[k]) / pi[ax];
				int mip = 2 + ((next[ax] + idi[ax] + 1) * ng[k]) / pi[ax] -
					  ((next[ax] + idi[ax]) * ng[k]) / pi[ax];
				if (mip == 2 || mi[ax][k] == 2)
					next[ax] *= 2;
				if (k + 1 <= MG_LT && mip == 2 && mi[ax][k] == 3)
					give_ex[ax][k + 1] = true;
			}
			dead[k] = mi[0][k] == 2 || mi[1][k] == 2 || mi[2][k] == 2;
			for (int ax = 0; ax < 3; ax++)
				for (int d = 0; d < 2; d++) {
					int id[3] = { idi[0], idi[1], idi[2] };
					int s = d ? -next[ax] : next[ax];
					id[ax] = ((idi[ax] + s) % pi[ax] + pi[ax]) % pi[ax];
					nbr[ax][d][k] = id[0] + pi[0] * (id[1] + pi[1] * id[2]);
				}
		}
		for (int k = 1; k <= MG_LT; k++) {
			uint64_t face[3] = { (uint64_t)mi[1][k] * mi[2][k], (uint64_t)mi[0][k] * mi[2][k],
					     (uint64_t)mi[0][k] * mi[1][k] };
			for (int ax = 0; ax < 3; ax++) {
				if (!dead[k]) /* comm3 -> give3 (resid, psinv, rprj3) */
					for (int d = 0; d < 2; d++)
						msg(t, me, (unsigned)nbr[ax][d][k], face[ax] * 8);
				if (k >= 2 && give_ex[ax][k]) /* interp -> comm3_ex -> give3_ex */
					for (int d = 0; d < 2; d++)
						msg(t, me, (unsigned)nbr[ax][d][k], face[ax] * 8 * (d ? 1 : 2));
			}
		}
	}
	coll_allreduce(t, 8); /* norm2u3: sum of squares */
	coll_allreduce(t, 8); /* norm2u3: max norm */
	return 0;
}

/* LU, proc_grid.f / neighbors.f: an xdim x ydim grid (ydim = the largest
 * divisor of p not above sqrt(p), xdim = p / ydim), row = id mod xdim,
 * non-periodic north/south (id -/+ 1) and west/east (id -/+ xdim).  ssor.f
 * per iteration: blts -> exchange_1 sends to south and east for every k
 * plane (the lower wavefront), buts -> exchange_1 to north and west (the
 * upper one), rhs -> exchange_3 to all four (two-deep faces); l2norm ->
 * MPI_Allreduce of 5 doubles.  Class A: 64^3, 250 iterations (one is
 * generated). */
static int gen_lu(struct e8_trace *t, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	unsigned p = t->ranks, ydim = (unsigned)(sqrt((double)p) + 0.001);
	while (ydim > 1 && p % ydim)
		ydim--;
	unsigned xdim = p / ydim;
	const unsigned n = 64;
	uint64_t isx = (n + xdim - 1) / xdim, isy = (n + ydim - 1) / ydim;
	for (unsigned id = 0; id < p; id++) {
		unsigned row = id % xdim, col = id / xdim;
		int north = row > 0 ? (int)id - 1 : -1, south = row + 1 < xdim ? (int)id + 1 : -1;
		int west = col > 0 ? (int)(id - xdim) : -1, east = col + 1 < ydim ? (int)(id + xdim) : -1;
		for (unsigned k = 2; k <= n - 1; k++) {
			if (south >= 0)
				msg(t, id, (unsigned)south, 5 * isy * 8);
			if (east >= 0)
				msg(t, id, (unsigned)east, 5 * isx * 8);
			if (north >= 0)
				msg(t, id, (unsigned)north, 5 * isy * 8);
			if (west >= 0)
				msg(t, id, (unsigned)west, 5 * isx * 8);
		}
		int nb[4] = { north, south, west, east };
		for (int i = 0; i < 4; i++)
			if (nb[i] >= 0)
				msg(t, id, (unsigned)nb[i], 10 * (i < 2 ? isy : isx) * n * 8);
	}
	coll_allreduce(t, 5 * 8);
	return 0;
}

/* SP and BT, make_set.f: the multipartition, ncells = sqrt(p) cells per
 * process; predecessor/successor in each of the three directions.  adi:
 * copy_faces sends to all six, x/y/z_solve send the forward elimination to
 * the successor and the back substitution to the predecessor at every
 * stage but the last (ncells - 1 stages).  Class A: 64^3, SP 400 and BT
 * 200 iterations (one is generated).  bt: BT's 5x5 blocks (larger
 * messages); the partners are the same by construction. */
static int gen_multipartition(struct e8_trace *t, bool bt, char *err, size_t errlen)
{
	unsigned p = t->ranks, nc = (unsigned)(sqrt((double)p) + 0.00001);
	if (nc * nc != p) {
		snprintf(err, errlen, "%s needs a square number of ranks (make_set.f), not %u", bt ? "BT" : "SP", p);
		return -1;
	}
	uint64_t cell = 64 / nc, face = cell * cell;
	for (unsigned node = 0; node < p; node++) {
		unsigned i = node % nc, j = node / nc;
		unsigned pred[3] = { (i + nc - 1) % nc + nc * j, i + nc * ((j + nc - 1) % nc),
				     (i + 1) % nc + nc * ((j + nc - 1) % nc) };
		unsigned succ[3] = { (i + 1) % nc + nc * j, i + nc * ((j + 1) % nc), (i + nc - 1) % nc + nc * ((j + 1) % nc) };
		for (int d = 0; d < 3; d++) {
			msg(t, node, succ[d], 2 * 5 * face * nc * 8); /* copy_faces */
			msg(t, node, pred[d], 2 * 5 * face * nc * 8);
			for (unsigned stage = 1; stage < nc; stage++) {
				msg(t, node, succ[d], (bt ? 5 * 5 + 5 : 22) * face * 8);
				msg(t, node, pred[d], (bt ? 5 : 10) * face * 8);
			}
		}
	}
	return 0;
}

static int gen_sp(struct e8_trace *t, char *err, size_t errlen) { return gen_multipartition(t, false, err, errlen); }
static int gen_bt(struct e8_trace *t, char *err, size_t errlen) { return gen_multipartition(t, true, err, errlen); }

static const struct {
	const char *name;
	int (*gen)(struct e8_trace *, char *, size_t);
} builtin[] = {
	{ "MG", gen_mg }, { "CG", gen_cg }, { "IS", gen_is }, { "LU", gen_lu }, { "SP", gen_sp }, { "BT", gen_bt },
};

/* ---- trace files ---- */

/* A decimal number at *s (no sign); NULL on junk or overflow. */
static const char *num(const char *s, uint64_t *v)
{
	if (*s < '0' || *s > '9')
		return NULL;
	uint64_t x = 0;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (x > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return NULL;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	*v = x;
	return s;
}

/* SimGrid's time-independent traces (the replay format of smpi_replay,
 * also written by TAU/Score-P converters): "[p]RANK ACTION ARGS", one MPI
 * call of one rank per line.  send/Isend give a message (RANK to DST,
 * BYTES); the collectives give their point-to-point pattern (coll=) once
 * per kind and root; receives, waits, compute and the like carry no
 * partner a send does not already name. */
enum { TI_SEND, TI_SKIP, TI_RD, TI_A2A, TI_BARRIER, TI_DOWN, TI_UP };
static const struct {
	const char *name;
	int kind;
	int root_arg; /* argument (after the action) that is the root, 0: none */
} ti_action[] = {
	{ "send", TI_SEND, 0 },       { "isend", TI_SEND, 0 },       { "recv", TI_SKIP, 0 },
	{ "irecv", TI_SKIP, 0 },      { "wait", TI_SKIP, 0 },        { "waitall", TI_SKIP, 0 },
	{ "test", TI_SKIP, 0 },       { "init", TI_SKIP, 0 },        { "finalize", TI_SKIP, 0 },
	{ "compute", TI_SKIP, 0 },    { "sleep", TI_SKIP, 0 },       { "comm_size", TI_SKIP, 0 },
	{ "comm_split", TI_SKIP, 0 }, { "comm_dup", TI_SKIP, 0 },    { "location", TI_SKIP, 0 },
	{ "allreduce", TI_RD, 0 },    { "allgather", TI_RD, 0 },     { "allgatherv", TI_RD, 0 },
	{ "reducescatter", TI_RD, 0 }, { "alltoall", TI_A2A, 0 },    { "alltoallv", TI_A2A, 0 },
	{ "barrier", TI_BARRIER, 0 }, { "bcast", TI_DOWN, 2 },       { "scatter", TI_DOWN, 3 },
	{ "scatterv", TI_DOWN, 0 },   { "reduce", TI_UP, 3 },        { "gather", TI_UP, 3 },
	{ "gatherv", TI_UP, 0 },
};

static void coll_barrier(struct e8_trace *t)
{
	if (t->coll == BENCH_E8_COLL_NONE)
		return;
	for (unsigned k = 1; k < t->ranks; k <<= 1) /* dissemination, as MPICH */
		for (unsigned r = 0; r < t->ranks; r++)
			msg(t, r, (r + k) % t->ranks, 0);
}

#define E8_WORDS 8

static int parse(const char *path, unsigned ranks, struct e8_trace *t, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	char *line = NULL;
	size_t cap = 0;
	unsigned long ln = 0;
	int rc = 0, ti = -1; /* the format, from the first line with data */
	/* collectives seen in a SimGrid trace: kind x root (ranks + 1: none) */
	uint8_t *coll = calloc((size_t)(TI_UP + 1) * (ranks + 1), 1);
	if (!coll) {
		fclose(f);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
#define FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); rc = -1; goto out; } while (0)
	while (getline(&line, &cap, f) >= 0) {
		ln++;
		char *c = strchr(line, '#');
		if (c)
			*c = 0;
		char *w[E8_WORDS + 1];
		int k = 0;
		char *sv = NULL;
		for (char *s = strtok_r(line, " \t\r\n", &sv); s; s = strtok_r(NULL, " \t\r\n", &sv)) {
			if (k == E8_WORDS + 1)
				break;
			w[k++] = s;
		}
		if (k == 0)
			continue;
		if (ti < 0)
			ti = k >= 2 && ((w[1][0] >= 'a' && w[1][0] <= 'z') || (w[1][0] >= 'A' && w[1][0] <= 'Z'));
		uint64_t v[3];
		if (!ti) {
			if (k > 3)
				FAIL("%s:%lu: more than 3 fields (the format is 'src dst bytes')", path, ln);
			for (int i = 0; i < k; i++) {
				const char *e = num(w[i], &v[i]);
				if (!e || *e)
					FAIL("%s:%lu: field %d '%.40s' is not a decimal number", path, ln, i + 1, w[i]);
			}
			if (k != 3)
				FAIL("%s:%lu: %d field%s, expected 3 (src dst bytes)", path, ln, k, k == 1 ? "" : "s");
		} else {
			/* [p]RANK ACTION ARGS */
			const char *e = num(w[0] + (w[0][0] == 'p'), &v[0]);
			if (!e || *e)
				FAIL("%s:%lu: '%.40s' is not a rank (SimGrid time-independent trace: [p]RANK ACTION ARGS)",
				     path, ln, w[0]);
			if (k < 2)
				FAIL("%s:%lu: no action after the rank", path, ln);
			size_t a = 0;
			while (a < sizeof ti_action / sizeof ti_action[0] && strcasecmp(ti_action[a].name, w[1]))
				a++;
			if (a == sizeof ti_action / sizeof ti_action[0])
				FAIL("%s:%lu: unknown action '%.40s' (SimGrid time-independent trace)", path, ln, w[1]);
			int kind = ti_action[a].kind;
			if (kind == TI_SEND) {
				if (k < 4)
					FAIL("%s:%lu: %s needs a destination and a size", path, ln, w[1]);
				e = num(w[2] + (w[2][0] == 'p'), &v[1]);
				if (!e || *e)
					FAIL("%s:%lu: destination '%.40s' is not a rank", path, ln, w[2]);
				char *end;
				errno = 0;
				double b = strtod(w[3], &end);
				if (*end || errno || !(b >= 0) || b > 1e18)
					FAIL("%s:%lu: size '%.40s' is not a number of bytes", path, ln, w[3]);
				v[2] = (uint64_t)b;
			} else if (kind != TI_SKIP) {
				unsigned root = ranks; /* none */
				if (kind == TI_DOWN || kind == TI_UP) {
					root = 0;
					int ra = ti_action[a].root_arg;
					if (ra && k > 1 + ra) {
						uint64_t r;
						e = num(w[1 + ra], &r);
						if (!e || *e || r >= ranks)
							FAIL("%s:%lu: root '%.40s' of %s is not a rank below ranks=%u", path, ln,
							     w[1 + ra], w[1], ranks);
						root = (unsigned)r;
					}
				}
				coll[(size_t)kind * (ranks + 1) + root] = 1;
			}
			if (kind != TI_SEND) {
				if (v[0] >= ranks)
					FAIL("%s:%lu: src rank %llu is not below ranks=%u", path, ln, (unsigned long long)v[0], ranks);
				continue;
			}
		}
		for (int i = 0; i < 2; i++)
			if (v[i] >= ranks)
				FAIL("%s:%lu: %s rank %llu is not below ranks=%u", path, ln, i ? "dst" : "src",
				     (unsigned long long)v[i], ranks);
		msg(t, (unsigned)v[0], (unsigned)v[1], v[2]);
	}
	if (ferror(f))
		FAIL("%s: read error", path);
	for (int kind = TI_RD; kind <= TI_UP; kind++)
		for (unsigned r = 0; r <= ranks; r++) {
			if (!coll[(size_t)kind * (ranks + 1) + r])
				continue;
			if (kind == TI_RD)
				coll_allreduce(t, 0);
			else if (kind == TI_A2A)
				coll_alltoall(t, 0);
			else if (kind == TI_BARRIER)
				coll_barrier(t);
			else if (t->coll != BENCH_E8_COLL_NONE)
				coll_tree(t, r, 0, kind == TI_UP);
		}
	if (t->oom)
		FAIL("%s: out of memory", path);
#undef FAIL
out:
	free(coll);
	free(line);
	fclose(f);
	return rc;
}

/* ---- analysis ---- */

static int analyse(const struct e8_trace *t, bool any, struct bench_e8row *row, unsigned *hist)
{
	unsigned p = t->ranks;
	size_t words = (p + 63) / 64;
	uint64_t *seen = calloc((size_t)p * words, sizeof *seen);
	if (!seen)
		return -1;
	for (size_t i = 0; i < t->n; i++) {
		const struct e8_msg *m = &t->m[i];
		if (m->src == m->dst)
			continue;
		seen[(size_t)m->dst * words + m->src / 64] |= 1ull << (m->src % 64);
		if (any)
			seen[(size_t)m->src * words + m->dst / 64] |= 1ull << (m->dst % 64);
		row->bytes += m->bytes;
	}
	row->msgs = t->n;
	row->ranks = p;
	row->p_max = 0;
	row->p_min = p;
	double sum = 0;
	for (unsigned r = 0; r < p; r++) {
		unsigned c = 0;
		for (size_t w = 0; w < words; w++)
			c += (unsigned)__builtin_popcountll(seen[(size_t)r * words + w]);
		hist[c]++;
		sum += c;
		if (c > row->p_max) {
			row->p_max = c;
			row->at_max = 0;
		}
		if (c == row->p_max)
			row->at_max++;
		if (c < row->p_min)
			row->p_min = c;
	}
	row->p_mean = sum / p;
	free(seen);
	return 0;
}

static int dump(const char *dir, const char *app, const struct e8_trace *t, const struct bench_opts *o, char *err,
		size_t errlen)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/e8-%s.trace", dir, app);
	FILE *f = fopen(path, "w");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	fprintf(f, "# dsh bench E8: NPB 3.3 MPI %s, Class A, %u ranks, one iteration of the timed region, coll=%s\n"
		   "# src dst bytes\n", app, t->ranks, bench_e8_coll_names[o->e8_coll]);
	for (size_t i = 0; i < t->n; i++)
		fprintf(f, "%u %u %llu\n", t->m[i].src, t->m[i].dst, (unsigned long long)t->m[i].bytes);
	if (fclose(f)) {
		snprintf(err, errlen, "%s: write failed", path);
		return -1;
	}
	return 0;
}

static int add_row(struct bench_out *out, const char *app, const char *source, const struct e8_trace *t,
		   const struct bench_opts *o, struct bench_fig *fig, char *err, size_t errlen)
{
	if (out->ne8 >= BENCH_MAX_E8) {
		snprintf(err, errlen, "more than %u applications", BENCH_MAX_E8);
		return -1;
	}
	struct bench_e8row *row = &out->e8[out->ne8];
	memset(row, 0, sizeof *row);
	snprintf(row->app, sizeof row->app, "%s", app);
	snprintf(row->source, sizeof row->source, "%s", source);
	unsigned *hist = calloc(t->ranks + 1, sizeof *hist);
	if (!hist || analyse(t, o->e8_any, row, hist)) {
		free(hist);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	out->ne8++;
	struct bench_series *s = bench_series_new(fig, app);
	for (unsigned c = 0; c <= row->p_max; c++)
		bench_point(s, c, hist[c]);
	free(hist);
	bench_val(out, "E8", "prediction", "", row->p_max, NAN, "%s: partners P (most of any of %u processes)", app,
		  row->ranks);
	bench_val(out, "E8", "prediction", "%", 100.0 * (row->p_max + 1) / row->ranks, NAN,
		  "%s: IPUSH/PUSH receive area, (P+1)/%u", app, row->ranks);
	return 0;
}

static int name_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int from_files(const struct bench_opts *o, struct bench_out *out, struct bench_fig *fig, char *err,
		      size_t errlen)
{
	char *files[BENCH_MAX_E8 + 1];
	unsigned nf = 0;
	struct stat st;
	if (stat(o->e8_trace, &st)) {
		snprintf(err, errlen, "traces=%s: %s", o->e8_trace, strerror(errno));
		return -1;
	}
	DIR *dir = S_ISDIR(st.st_mode) ? opendir(o->e8_trace) : NULL;
	if (S_ISDIR(st.st_mode) && !dir) {
		snprintf(err, errlen, "traces=%s: %s", o->e8_trace, strerror(errno));
		return -1;
	}
	if (dir) {
		struct dirent *e;
		int rc = 0;
		while ((e = readdir(dir))) {
			if (e->d_name[0] == '.')
				continue;
			if (nf == BENCH_MAX_E8) {
				snprintf(err, errlen, "traces=%s: more than %u files", o->e8_trace, BENCH_MAX_E8);
				rc = -1;
				break;
			}
			size_t len = strlen(o->e8_trace) + strlen(e->d_name) + 2;
			if (!(files[nf] = malloc(len))) {
				rc = -1;
				snprintf(err, errlen, "out of memory");
				break;
			}
			snprintf(files[nf++], len, "%s/%s", o->e8_trace, e->d_name);
		}
		closedir(dir);
		if (!rc && !nf) {
			snprintf(err, errlen, "traces=%s: no trace files in the directory", o->e8_trace);
			rc = -1;
		}
		if (rc) {
			while (nf)
				free(files[--nf]);
			return -1;
		}
		qsort(files, nf, sizeof *files, name_cmp);
	} else {
		if (!(files[nf] = strdup(o->e8_trace))) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		nf++;
	}
	int rc = 0;
	for (unsigned i = 0; i < nf && !rc && !(rc = -bench_stopped(o, err, errlen)); i++) {
		struct e8_trace t = { .ranks = o->e8_ranks ? o->e8_ranks : 64, .coll = o->e8_coll };
		rc = parse(files[i], t.ranks, &t, err, errlen);
		if (!rc) {
			const char *base = strrchr(files[i], '/');
			base = base ? base + 1 : files[i];
			char app[32];
			snprintf(app, sizeof app, "%.*s", (int)strcspn(base, "."), base);
			rc = add_row(out, app[0] ? app : base, "trace", &t, o, fig, err, errlen);
		}
		free(t.m);
	}
	for (unsigned i = 0; i < nf; i++)
		free(files[i]);
	return rc;
}

int bench_e8(const struct bench_opts *o, struct bench_out *out, char *err, size_t errlen)
{
	unsigned ranks = o->e8_ranks ? o->e8_ranks : 64;
	if (ranks < 2 || ranks > E8_MAX_RANKS) {
		snprintf(err, errlen, "ranks=%u: 2-%u", ranks, E8_MAX_RANKS);
		return -1;
	}
	char title[96];
	snprintf(title, sizeof title, "Table 7.3: distinct %s per process (%u ranks)",
		 o->e8_any ? "partners" : "senders", ranks);
	struct bench_fig *fig = bench_fig_new(out, "table7.3", title, "distinct partners", "processes", false);
	if (o->e8_trace)
		return from_files(o, out, fig, err, errlen);
	if (o->outdir && mkdir(o->outdir, 0777) && errno != EEXIST) {
		snprintf(err, errlen, "out=%s: %s", o->outdir, strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < sizeof builtin / sizeof builtin[0]; i++) {
		if (bench_stopped(o, err, errlen))
			return -1;
		struct e8_trace t = { .ranks = ranks, .coll = o->e8_coll };
		int rc = builtin[i].gen(&t, err, errlen);
		if (!rc && t.oom) {
			snprintf(err, errlen, "%s: out of memory", builtin[i].name);
			rc = -1;
		}
		if (!rc && o->outdir)
			rc = dump(o->outdir, builtin[i].name, &t, o, err, errlen);
		if (!rc)
			rc = add_row(out, builtin[i].name, "built-in", &t, o, fig, err, errlen);
		free(t.m);
		if (rc)
			return rc;
	}
	return 0;
}

const char *const bench_e8_coll_names[] = { "rd", "binomial", "none", NULL };
