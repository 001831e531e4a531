/* dsh bench: the building blocks of the experiments' host programs
 * (bench_prog.c) -- a BOTF message through the Write Windows in rotation,
 * a request, completion by the Primitive Counter, arrival by the receive
 * status ring, a read into host memory through the Prefetch Window -- shared
 * by bench_exp.c (E1-E7) and bench_e9.c. */
#ifndef DSH_BENCH_PROG_H
#define DSH_BENCH_PROG_H

#include <stdbool.h>
#include <stdint.h>
#include "dnet/packet.h"
#include "bench.h"
#include "bench_host.h"

#define WID 0u
#define UR(off) (DNET_UREG_WID(WID) + (off))
#define BOTF_DATA 496u                 /* 512 B window - 16 B header (§6.2) */
#define TMO 100000000ull               /* 100 ms of virtual time for any wait */
#define RING_BYTES 4096u               /* status ring: 256 statuses */
#define AMT_IDX 256u                   /* LLCM word of the AMT entry */
#define IPUSH_RING (16u << 20)         /* SO-DIMM offset of the IPUSH ring */
#define IPUSH_UNITS 2048u              /* 8 MB ring (4 KB units, D-SIM-IPUSH-AREA) */

/* trace=FILE: the first emulator opened after it is set writes its Chrome
 * trace-event JSON there (bench_experiment sets it). */
extern const char *bp_trace_next;
/* timing.NAME=VALUE overrides every emulator opened gets (bench_opts). */
extern const struct bench_opts *bp_opts;

/* ---- per-host state ---- */

struct ctr { uint64_t total; unsigned last; };

struct hs {
	unsigned peer;                 /* node (CLID) of the other host */
	struct ctr botf, rvs, ipush;
	uint64_t botf_issued, win_used[4];
	unsigned next_win;
	uint32_t st_tail;              /* receive status ring Tail seen */
	uint64_t seq;                  /* messages sent (PW destination: the last word) */
	uint64_t st_count, st_head_at;
	uint8_t img[512];
};

struct botf_cfg {
	unsigned k;                    /* Write Windows in rotation */
	bool eflag;                    /* a receive status per packet (ping-pong) */
	bool to_pw;                    /* rflag: into the receiver's Prefetch Window */
	unsigned type;                 /* header TYPE (RVS, IPUSH, LHSv1) */
	bool lflag;
};

int bp_open_sim(struct dnet_dev **dev, char *err, size_t errlen);

/* Wait until the family's Primitive Counter has counted `target`
 * completions since the start (10-bit fields wrap: each change is read). */
void bp_ctr_wait(struct bench_host *h, struct ctr *c, unsigned fam, uint64_t target);

/* One read of the Primitive Counter (D-BENCH-PP-WINFREE). */
void bp_ctr_read(struct bench_host *h, struct ctr *c, unsigned fam);

/* Completion known without reading (the reply arrived). */
void bp_ctr_assume(struct ctr *c, uint64_t total);

void bp_status_ring_setup(struct bench_host *h, struct hs *st);

/* Poll Status Next Write Address until k more statuses arrived; give the
 * ring back (Next Read Address) when half of it is used. */
void bp_status_wait(struct bench_host *h, struct hs *st, unsigned k);

/* The bytes the last k statuses name, one UC read of each (D-BENCH-PP-SIZE). */
uint32_t bp_status_sizes(struct bench_host *h, const struct hs *st, unsigned k);

/* One message of `size` data bytes as ceil(size/496) BOTFs: for each, wait
 * until its window is free, write the packet image, issue. */
void bp_botf_message(struct bench_host *h, struct hs *st, const struct botf_cfg *c, uint32_t size,
			 const uint64_t *payload_head);

unsigned bp_botf_packets(uint32_t size);

void bp_issue(struct bench_host *h, unsigned otype, unsigned peer, unsigned eflag, uint32_t size,
		  uint32_t src, uint32_t dst);

/* Read `size` bytes at SO-DIMM offset `src` into a host buffer of
 * `footprint` bytes, 2 KB at a time through the Prefetch Window (§4.2.1):
 * clflush, VL per 512 B window, poll the flags, PREFETCHNTA, copy. */
void bp_read_to_host(struct bench_host *h, uint32_t src, uint32_t size, uint64_t footprint);

/* The receive status just consumed (the one before Tail). */
void bp_last_status(struct bench_host *h, const struct hs *st, struct dnet_status *s);

void bp_ipush_setup(struct bench_host *h, struct hs *st);

#endif
