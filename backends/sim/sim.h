/* sim: the DIMMnet-2 emulator backend -- internal declarations shared by
 * the files of backends/sim/ (not a public header).
 *
 * The model:
 *   node.c    host interface decode of one node (WW/PW/LLCM/LHB/UREG/SREG),
 *             registers, Controller Status, Module State, Controller Reset
 *   wc.c      Window Controller: Request FIFOs, Acceptor, Executor families
 *   rc.c      Receive Controller and Status Write Unit
 *   ipush.c   IPUSH/LHS reception: AMT lookup, SO-DIMM rings, LH Buffer
 *   switch.c  packet delivery between nodes (source LID as link metadata) and
 *             SWIF's end-to-end retransmission when faults are configured
 *   faults.c  the fault model: rules, their seeded PRNG, the rule language
 *   params.c  the backend's parameters: fault rules, SWIF counters, step costs
 *   sodimm.c  two SO-DIMMs interleaved every 8 bytes, sparse storage
 *   xfer.c    contiguous / stride / list access patterns over SO-DIMM areas
 *   eventq.c  deterministic event queue (time, sequence)
 *   timing.c  the one table of step costs
 *   sim.c     the backend vtable, spec parsing, virtual time, waits, stats
 *
 * Every ambiguous reading is decided once, in the function named in
 * docs/decisions.md (emulator table), with a comment citing the thesis and
 * the OQ.
 */
#ifndef SIM_SIM_H
#define SIM_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "dnet/backend.h"
#include "dnet/device.h"
#include "dnet/map.h"
#include "dnet/codes_int.h"    /* private (libdnet/internal): the emulator builds what the hardware does */
#include "dnet/modstate_int.h"
#include "dnet/packet_int.h"
#include "dnet/request_int.h"
#include "sim/eventq.h"
#include "sim/timing.h"

/* Unicast CLIDs are 12'h001-12'hBFF (Tab. 4.6): 3071 nodes; 12'hC00 and
 * up are multicast. */
#define SIM_MAX_NODES 3071u
/* The end of virtual time (D-SIM-TIME-END): 2^62 ns leaves 2^62 ns of room
 * for any step added to the clock. */
#define SIM_TIME_END DNET_VTIME_END

/* ---- SO-DIMM (sodimm.c) ----
 * Storage follows the interleaved SO-DIMM address space: a chunk holds
 * 128 KB of it, i.e. the same 64 KB chunk of both modules, so a contiguous
 * transfer is one memcpy per chunk.  The low bits of a chunk's address tell
 * which module's 64 KB holds data (bit m: module m); pages says which of
 * its 4 KB pages were ever stored to (the others are zeros, never touched). */
#define SIM_PCHUNK_SHIFT 17u                   /* 128 KB of address space */
#define SIM_PCHUNK (1u << SIM_PCHUNK_SHIFT)
#define SIM_MCHUNK (SIM_PCHUNK / 2u)           /* 64 KB of each module */
#define SIM_SD_PAGE 4096u
#define SIM_L2_SHIFT 6u                        /* 64 chunks = 8 MB per L2 table */
#define SIM_L1_ENTRIES 2048u                   /* 2048 x 8 MB = 16 GB: two 8 GB modules */
struct sim_chunk {
	uintptr_t mem;                         /* mapping | module bits */
	uint32_t pages;                        /* bit k: page k holds stored data */
};
struct sim_sdimm {
	uint64_t chunks;                       /* 64 KB module chunks holding data */
	struct sim_chunk *l1[SIM_L1_ENTRIES];  /* -> 64 chunks */
};

/* ---- access patterns (xfer.c) ---- */
enum sim_pat_kind { SIM_PAT_CONTIG, SIM_PAT_STRIDE, SIM_PAT_LIST };
struct sim_pat {
	enum sim_pat_kind kind;
	uint64_t base;        /* area offset of element 0 (or base added to indices) */
	uint32_t esize;       /* element bytes (1 << DTYPE); unused for CONTIG */
	uint32_t stride;      /* STRIDE: start-to-start distance */
	uint32_t list;        /* LIST: SO-DIMM offset of the 32-bit index array */
	uint64_t total;       /* bytes */
};

/* ---- packets (switch.c / wc.c / rc.c) ---- */
/* Decision D-SIM-SWIF-BUF (§5.3, depths not
 * given, OQ-21): packets a node has sent that the receiving Receive
 * Controller has not yet taken occupy its SWIF send FIFO; with this many
 * outstanding the FIFO is "almost full" and the executor waits before
 * sending the next packet. */
#define SIM_SWIF_TX_PKTS 8u
struct sim_pkt {
	struct sim_pkt *next;
	uint16_t slid;        /* source LID carried by the link (OQ-23) */
	unsigned src_node;
	unsigned nlines;
	/* SWIF reliability (switch.c, Decision D-SIM-SWIF-RETX); all 0 on the
	 * fault-free path except psn. */
	uint8_t kind;         /* enum sim_pkt_kind */
	bool rel;             /* sent on the reliable path: ACKed, retransmitted */
	uint32_t psn;         /* per (source, destination) packet sequence number */
	uint32_t crc;         /* CRC-32 of the lines (or of psn for ACK/NAK) */
	uint32_t aux;         /* timer: generation */
	uint64_t stall_ns;    /* a stall fault this packet starts at its receiver */
	uint64_t depart;      /* when it left the sender (trace) */
	uint16_t org_node;    /* the host request it serves (D-SIM-CAUSE): node, */
	uint8_t org_wid;      /* and WID; org_node 0: none */
	uint32_t org_req;     /* and its request id (D-SIM-REQ-ID; 0: none) */
	bool pooled;          /* SIM_PKT_POOL_LINES long: goes back to sim.pkt_pool */
	/* A deferred payload (switch.c, host speed only: the model never sees
	 * it): while lazy_src is set the data lines are not filled; the data
	 * is lazy_len bytes at SO-DIMM address lazy_addr of node lazy_src,
	 * from line lazy_hl on, unchanged since the packet left (a store to
	 * that SO-DIMM fills the packet first).  lazy_prev/next: the source
	 * node's list of them.  These come last: sim_pkt_alloc_lines clears
	 * the fields before them. */
	struct sim_node *lazy_src;
	struct sim_pkt *lazy_prev, *lazy_next;
	uint64_t lazy_addr;
	uint32_t lazy_len;
	uint8_t lazy_hl;
	uint64_t line[];      /* header lines then data lines */
};
enum sim_pkt_kind { SIM_PKT_DATA, SIM_PKT_ACK, SIM_PKT_NAK, SIM_PKT_TIMER };

/* ---- requests (wc.c) ---- */
struct sim_req {
	uint64_t lower, upper, ex;
	bool has_ex;
	unsigned sel;         /* request bit 128: 0 = Command0, 1 = Command1 */
	unsigned wid;         /* request bit 129 */
	/* Entries of the Receive Controller's FIFO (RVL from the network). */
	bool from_rc;
	uint16_t slid;        /* issuer's LID */
	uint16_t org_node;    /* from_rc: the RVL's origin (D-SIM-CAUSE) */
	uint8_t org_wid;
	uint32_t org_req;     /* a host request's own id, or from_rc the RVL's (D-SIM-REQ-ID) */
	struct dnet_pkt_hdr hdr;
};

struct sim_fifo {
	struct sim_req *v;
	unsigned depth, head, count;
};

enum sim_job {
	SIM_JOB_NONE, SIM_JOB_START, SIM_JOB_BOTF, SIM_JOB_VL, SIM_JOB_VS,
	SIM_JOB_RVL, SIM_JOB_RVS, SIM_JOB_IPUSH,
};

struct sim_wcjob {
	enum sim_job kind;
	struct sim_req req;
	struct dnet_req r;
	unsigned phase;
	/* VL: data snapshot and line-by-line landing. */
	uint8_t buf[DNET_WINDOW_SIZE];
	uint32_t dst, len;
	unsigned line;
	uint64_t t0;                  /* start time of the data phase */
	/* RVS (host-issued or RVL response). */
	struct sim_pat pat;           /* local read */
	uint64_t pos;                 /* bytes already sent */
	struct dnet_pkt_hdr h;        /* header template */
	unsigned hdr_lines;
	uint32_t pkt_dst;             /* this packet's DSTOff */
	uint32_t pkt_list;            /* RVSI: this packet's list address */
	bool count;                   /* counts in the Primitive Counter */
	enum dnet_family fam;         /* counter slot (RVS or IPUSH) */
	uint32_t pre_len;             /* LHSv2: Write Window bytes (in buf) sent first */
	uint64_t t_start;             /* when the executor took it (trace) */
	uint64_t dw1;                 /* RVS: the last packet's 1st DW, of dw1_size and dw1_eflag */
	unsigned dw1_size, dw1_eflag;
	bool dw1_valid;
};

/* Copy descriptor left by the VL half of an SO-DIMM-to-SO-DIMM copy. */
struct sim_copy {
	bool valid;
	unsigned wid;
	struct sim_pat src;
};

/* ---- per process (WID) state ---- */
struct sim_wid {
	/* the Block RAMs, in the node's struct sim_widmem (kept apart from the
	 * small state, so that an idle node's pages are few) */
	uint8_t *ww;                  /* [DNET_WINAREA_SIZE] */
	uint8_t *pw;                  /* [DNET_WINAREA_SIZE] */
	uint8_t *llcm;                /* [DNET_LLCM_SIZE] */
	uint8_t *lhb;                 /* [DNET_LHB_SIZE] */
	uint64_t cmd_upper[2];
	uint64_t cmd_ex;
	bool ex_flag;
	bool pending[2];              /* Command0/1 Lower written, not yet in the FIFO */
	struct sim_req pend[2];
	uint64_t pend_seq[2];
	uint64_t cs_ww;               /* Controller Status bits 5..16 */
	uint32_t prim[DNET_FAMILY_COUNT];
	uint64_t pkt_count;
	uint16_t pw_flag;
	uint16_t ipush_area;
	uint16_t lhb_head, lhb_tail;
	uint16_t st_init, st_head, st_tail;
	uint32_t st_size;             /* bytes */
	/* host side: 64-byte lines of PW (2 KB) / LH Buffer (4 KB) in the cache */
	uint64_t pw_cached, lhb_cached;
};
struct sim_widmem {
	uint8_t ww[DNET_WINAREA_SIZE];
	uint8_t pw[DNET_WINAREA_SIZE];
	uint8_t llcm[DNET_LLCM_SIZE];
	uint8_t lhb[DNET_LHB_SIZE];
};

enum sim_stat {
	ST_PGID_DROPS, ST_PKT_SENT, ST_PKT_RECV, ST_IPUSH_MSGS, ST_LHS_MSGS, ST_IPUSH_STALLS,
	ST_LHB_STALLS, ST_IPUSH_NO_RING, ST_IPUSH_TOO_BIG, ST_IPUSH_ORPHANS, ST_AMT_BAD_LID,
	ST_UNROUTABLE, ST_MULTICAST_DROPS, ST_COPY_LIST_REFUSED, ST_BAD_PKT, ST_REQ_OVERWRITTEN, ST_RC_STALLS, ST_UNKNOWN_OTYPE,
	ST_BOTF_DROPPED, ST_SDIMM_UNINIT, ST_ALLOC_FAIL, ST_BYTES_SENT, ST_BYTES_RECV,
	/* SWIF reliability and faults (switch.c, faults.c) */
	ST_RETRANSMITS, ST_RETX_TIMEOUTS, ST_DUPS_DROPPED, ST_CRC_ERRORS, ST_OUT_OF_SEQ,
	ST_ACKS_SENT, ST_NAKS_SENT, ST_FAULTS,
	ST_F_DROP, ST_F_DUP, ST_F_REORDER, ST_F_DELAY, ST_F_CORRUPT, ST_F_STALL, /* per kind, in enum sim_fault_kind order */
	ST_COUNT
};

enum rc_wait { RC_RUN, RC_WAIT_RING, RC_WAIT_FIFO, RC_WAIT_IPUSH };

/* The received packet the Receive Controller holds, decoded (rc.c). */
struct sim_rx_info {
	struct dnet_pkt_hdr h;
	unsigned hl;          /* header lines */
	uint64_t dlen;        /* data bytes */
	const struct dnet_otype_info *oi;
};

/* An IPUSH/LHS message being received (ipush.c, Decision D-SIM-IPUSH-MSG):
 * the room its first packet reserved, found again by the sender's
 * {SLID, SWID} for the later packets. */
struct ipush_msg {
	struct ipush_msg *next;
	uint16_t slid;
	unsigned swid, dwid;
	bool lhs;
	uint32_t total;               /* message bytes */
	uint32_t got;                 /* bytes received so far */
	uint32_t addr;                /* SO-DIMM address of the ring part */
	uint32_t ring_len;            /* bytes of the message in the ring */
	unsigned lh_slot;             /* LHS: entry index */
};

/* ---- faults (faults.c) ----
 * Rules that act on packets crossing the switch, per link (from/to node),
 * by rate (a seeded PRNG of the emulator's own) or by rule (the nth/every
 * kth matching packet, at most count times).  Decision D-SIM-FAULTS. */
enum sim_fault_kind {
	SIM_FK_DROP, SIM_FK_DUP, SIM_FK_REORDER, SIM_FK_DELAY, SIM_FK_CORRUPT, SIM_FK_STALL,
	SIM_FK_COUNT
};
#define SIM_FAULT_RULES 32u
#define SIM_FAULT_PPM 1000000u
struct sim_fault_rule {
	enum sim_fault_kind kind;
	unsigned from, to;            /* node (CLID), 0 = any */
	unsigned what;                /* 0 = every packet, 1 = data only, 2 = ACK/NAK only */
	uint32_t ppm;                 /* by rate: parts per million of matching packets */
	uint64_t nth;                 /* by rule: the nth matching packet only (1-based) */
	uint64_t every;               /* by rule: every kth matching packet */
	uint64_t count;               /* fires at most this often (0: no limit) */
	uint64_t dur_ns;              /* reorder/delay/dup/stall: how long */
	uint64_t seen, fired;
};
struct sim_faults {
	struct sim_fault_rule rule[SIM_FAULT_RULES];
	unsigned nrules;
	uint64_t seed, rng;           /* splitmix64 state (never rand()) */
	uint64_t rto_ns;              /* retransmit timeout, virtual ns (0: default) */
	uint64_t injected[SIM_FK_COUNT];
};
/* What the rules do to one transmission (sim_faults_apply). */
struct sim_fault_fx {
	bool drop, dup, corrupt;
	uint64_t extra_ns;            /* reorder: this packet only arrives later */
	uint64_t hold_ns;             /* delay: the sender's link holds this packet and those after it */
	uint64_t dup_ns;              /* the copy arrives this much after the original */
	uint64_t stall_ns;            /* the receiver accepts nothing for this long */
	uint64_t corrupt_rand;        /* which bit to flip */
};

/* ---- SWIF end-to-end reliability (switch.c, Decision D-SIM-SWIF-RETX) ----
 * The send FIFO slots hold a copy of each packet sent on the reliable path
 * until it is both acknowledged and taken by the receiving RC; the PSN
 * tables are per peer node, indexed by CLID. */
#define SIM_SWIF_SLOT_LINES 512u      /* 4 KB: the 12-bit Packet Size field's maximum */
struct sim_swif_slot {
	bool used, acked, taken;
	unsigned dst;
	uint32_t psn;
	uint64_t order;               /* send order, for go-back-N */
	uint64_t deadline;            /* retransmit when not acked by then */
	unsigned nlines;
	uint16_t slid;
	uint16_t org_node;
	uint8_t org_wid;
	uint32_t org_req;
	uint64_t line[SIM_SWIF_SLOT_LINES];
};
struct sim_swif {
	unsigned used;
	uint64_t order;
	uint32_t timer_gen;
	uint64_t timer_at;            /* the pending timer's time (0: none) */
	uint64_t link_free;           /* delay faults: the link is FIFO from here */
	uint64_t stall_until;         /* stall faults: the receive side is held until then */
};
/* Per peer node (by CLID), one entry for both directions. */
struct sim_swif_peer {
	uint32_t tx_psn;              /* next PSN to it */
	uint32_t rx_epsn;             /* next PSN expected from it */
	uint8_t rx_nak;               /* a NAK went out for the current gap */
};

/* Decision D-SIM-CAUSE: every error event (a Controller Status error flag
 * raised, a packet dropped for its PGID or for want of a route) is counted
 * against the host request that started it -- the node and WID that issued
 * it, or for an RVL response the RVL's issuer -- so that a verdict can
 * judge what one primitive caused although the flags are sticky (Tab. A.1)
 * and shared by both WIDs.  Stats w<W>_errors_caused and
 * w<W>_last_<cause>[_node] (sim.c) read them. */
enum sim_cause {
	SIM_CAUSE_RC_OVERRUN, SIM_CAUSE_RC_STATE, SIM_CAUSE_STATUS_FULL, SIM_CAUSE_PGID_DROP,
	SIM_CAUSE_UNROUTABLE, SIM_CAUSE_RX_DROP,
	SIM_CAUSE_WW0_SRC, SIM_CAUSE_WW0_DST, /* window w: + 2w */
	SIM_CAUSE_COUNT = SIM_CAUSE_WW0_SRC + 2 * DNET_WINDOWS
};
extern const char *const sim_cause_names[SIM_CAUSE_COUNT];
/* Decision D-SIM-REQ-ID: each host request kicked by a WID gets the next
 * id of that WID (1, 2, ...: w<W>_requests is the latest), carried by its
 * packets and by an RVL's response, so the error events of one request
 * are told from those of the next one of the same WID although their
 * packets overlap; the last SIM_REQ_RECS requests keep their own record
 * (w<W>_req<ID>_errors, w<W>_req<ID>_<cause>_node, sim.c). */
#define SIM_REQ_RECS 64u
struct sim_req_rec {
	uint32_t req;                     /* whose record (0: none yet) */
	uint32_t errors;                  /* error events it caused */
	uint16_t node[SIM_CAUSE_COUNT];   /* where each cause happened first (0: not caused) */
};
struct sim_caused {
	uint64_t in_flight;               /* packets sent for it that no Receive Controller has finished */
	uint64_t total;                   /* error events caused */
	uint64_t last[SIM_CAUSE_COUNT];   /* total at the latest event of each cause (0: never) */
	uint16_t node[SIM_CAUSE_COUNT];   /* where that event happened */
	uint32_t requests;                /* host requests kicked so far: the latest id */
	struct sim_req_rec rec[SIM_REQ_RECS]; /* by id % SIM_REQ_RECS */
};

struct sim_node {
	unsigned id;                  /* 1..nodes = CLID */
	struct sim *sim;              /* the cluster it belongs to */
	struct sim_caused caused[DNET_NWID]; /* by this node's requests, per issuing WID */
	struct sim_wid w[DNET_NWID];
	/* System Register state (Tab. 4.12) */
	uint64_t cap_code, mtu_code;
	uint64_t cap_bytes;           /* what the codes mean (node.c: set_cap_code, set_mtu_code) */
	uint32_t mtu_bytes;
	uint16_t lid;
	uint8_t pgid[DNET_NWID];
	bool sdimm_ready, sdimm_init_busy;
	uint32_t sdimm_init_gen;      /* only the latest SO-DIMM Init completes */
	uint64_t sma_up_at;           /* SMA LID reads link-up from this time */
	uint16_t *amt;                /* 8192 entries {CLID, WID}, lazily */
	uint64_t cs_rc;               /* Controller Status bits 17..19 (sticky) */
	/* Window Controller */
	struct sim_fifo hostq, rcq;
	unsigned rr;
	uint64_t pend_seq;
	struct sim_wcjob job;
	uint32_t wc_gen;
	bool wc_sched;
	uint32_t wc_seq;     /* only the latest EV_WC scheduled counts */
	uint64_t acc_from;   /* when the Acceptor began taking the next request (trace) */
	struct sim_copy copy;
	/* Receive Controller */
	struct sim_pkt *rxq_head, *rxq_tail;
	unsigned rxq_len;
	struct sim_pkt *rx_cur;
	struct sim_rx_info rx_x;      /* rx_cur decoded when taken */
	uint64_t rx_dw1;              /* rx_x was decoded from rx_nd lines with this 1st DW (rc.c) */
	unsigned rx_nd;
	unsigned rc_phase;
	enum rc_wait rc_wait;
	bool rc_stall_counted;        /* this packet's ring stall is in rc_stalls */
	uint32_t rc_gen;
	bool rc_sched;
	unsigned rc_ms;               /* Module State RC sub-state */
	unsigned wu_ipush;            /* Module State WU IPUSH sub-state */
	struct ipush_msg *rx_msgs;    /* IPUSH/LHS messages being received */
	uint32_t rx_st_addr, rx_st_size; /* status fields of a finished IPUSH message */
	bool vl_hold;                 /* a VL waits for an LHS message (D-SIM-LHS-VL) */
	bool halt_on_error;           /* the sim option: an error stops this controller */
	bool halted;                  /* stopped on an error until Controller Reset */
	unsigned tx_inflight;         /* packets sent, not yet delivered */
	unsigned tx_unacked;          /* sent, not yet taken by the receiving RC */
	bool tx_wait;                 /* executor waits for SWIF FIFO space */
	bool wc_dirty;                /* host: WC stores not yet drained */
	uint32_t wc_line;             /* host: the 64-byte line being combined */
	uint64_t ht;                  /* host clock with sim timelines (D-SIM-TIMELINES) */
	/* timelines: the host's last store, reaching the device at ht */
	uint8_t *posted;
	size_t posted_len, posted_cap;
	uint32_t posted_off;
	unsigned posted_step;
	uint64_t pu_until, wu_until;  /* PU reading / WU writing the SO-DIMM until */
	uint64_t st[ST_COUNT];
	struct sim_swif swif;         /* SWIF reliability state (switch.c) */
	struct sim_pkt *lazy_head;    /* packets in flight whose payload is still here (switch.c) */
	/* Large and seldom used state last: the node is an anonymous mapping
	 * (node.c) and a page of it takes memory only once touched. */
	struct sim_sdimm sd;          /* SO-DIMM1 (addr bit 3 = 0) and SO-DIMM2 */
	struct sim_swif_peer peer[SIM_MAX_NODES + 1];
	struct sim_swif_slot slot[SIM_SWIF_TX_PKTS]; /* send FIFO copies (reliable path) */
	struct sim_widmem mem[DNET_NWID];
};

/* Data packets of the default MTU (2 KB) are recycled through a free list in
 * struct sim instead of malloc/free per packet (host speed only; the model
 * never sees it): header lines and 2048 B, at most SIM_PKT_POOL_MAX kept. */
#define SIM_PKT_POOL_LINES (DNET_HDR_MAX_LINES + 2048 / 8)
#define SIM_PKT_POOL_MAX 64

/* A copy between SO-DIMMs not yet made (sodimm.c, host speed only): len
 * bytes from src_addr of src to dst_addr of dst.  The Receive Controller
 * leaves its copy of a deferred payload here while run_until runs, so the
 * copies of consecutive packets are made as one (a whole RVS, when the
 * host only waits meanwhile); whatever reads or writes an SO-DIMM or
 * counts its bytes (every sodimm.c entry point, the host's backdoor
 * included) makes it first, and so does a packet deferred on dst. */
struct sim_sd_copy {
	struct sim_node *dst, *src;
	uint64_t dst_addr, src_addr, len;
};

struct sim {
	unsigned nnodes;
	struct sim_pkt *pkt_pool;     /* free packets of SIM_PKT_POOL_LINES (via next) */
	unsigned pkt_pool_n;
	struct sim_node **node;       /* [nnodes], lazily allocated */
	uint64_t now;
	uint64_t events;
	struct sim_evq q;
	/* An event due now, scheduled while run_until runs, waits here instead
	 * of in the heap (sim.c: sim_schedule); the order is (time, sequence)
	 * all the same. */
	struct sim_ev now_ev;
	bool now_ev_set, running;
	uint64_t until;               /* while running: run_until's limit */
	struct sim_sd_copy sdcopy;
	struct sim_timing t;
	bool cold;
	uint64_t cap_code, mtu_code;  /* defaults for new nodes */
	const struct dnet_otype_info *oi[32]; /* dnet_otype_info by 5-bit TYPE, looked up once */
	unsigned fifo_depth;
	uint64_t nodes_allocated;
	uint64_t unroutable;
	bool lhs_own_type;            /* lhs_type=own: LHSv1/v2 keep their TYPE on the wire */
	bool halt_on_error;           /* an error stops the controller until Controller Reset */
	bool clid_12_9;               /* clid=12:9: the LID[12:9] reading of D-CLID */
	bool timelines;               /* a host clock per node (D-SIM-TIMELINES) */
	FILE *trace;                  /* trace=FILE (trace.c), or NULL */
	char trace_path[256];
	bool trace_first;
	unsigned char *trace_named;   /* [nnodes + 1]: node's tracks named */
	uint64_t *trace_lane;         /* per node, track and lane: its last end + 1 (0: unused) */
	struct sim_faults faults;     /* faults=... and the fault.* parameters (faults.c, params.c) */
};

/* trace.c */
enum sim_track {
	SIM_TR_HOST, SIM_TR_ACC, SIM_TR_EXEC, SIM_TR_SWIF_TX, SIM_TR_SWITCH, SIM_TR_SWIF_RX, SIM_TR_RC, SIM_TR_STATUS,
	SIM_TR_COUNT
};
int sim_trace_open(struct sim *s, const char *path, struct dnet_err *err);
void sim_trace_close(struct sim *s);
void sim_trace_span(struct sim *s, unsigned node, enum sim_track tr, uint64_t t0, uint64_t t1,
		    const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* sim.c */
void sim_schedule(struct sim *s, uint64_t at, enum sim_evkind k, unsigned node,
		  uint32_t gen, uint32_t a, void *p);
/* Host speed only (the model never sees it): a step that an event would
 * run may run in place when that changes nothing but the events count.
 * sim_now_is_next: an event scheduled now would run next.  sim_quiet_until:
 * up to time t (within run_until's limit) only events that leave node
 * untouched run -- executor and acceptor steps of other nodes, ticks --
 * and no packet they send can reach node by t.  Both are false while a
 * wait looks at the state after each event, and while tracing. */
bool sim_now_is_next(const struct sim *s);
bool sim_quiet_until(const struct sim *s, unsigned node, uint64_t t);
/* The cluster's LID/CLID reading (D-CLID; clid=). */
static inline enum dnet_clid_reading sim_clid_reading(const struct sim *s)
{
	return s->clid_12_9 ? DNET_CLID_12_9 : DNET_CLID_11_8;
}

static inline uint64_t sim_clk(const struct sim *s, uint64_t clocks)
{
	return clocks * s->t.clk_ns;
}

/* node.c */
struct sim_node *sim_node_get(struct sim *s, unsigned id); /* NULL: no memory */
void sim_node_free(struct sim_node *n);
int sim_host_read(struct sim *s, struct sim_node *n, uint32_t off, uint8_t *buf, unsigned w,
		  bool peek);
int sim_host_write(struct sim *s, struct sim_node *n, uint32_t off, const uint8_t *buf,
		   unsigned w);
uint64_t sim_host_charge(const struct sim *s, struct sim_node *n, uint32_t off, unsigned width,
			 bool write);
size_t sim_host_run(uint32_t off, size_t len);
uint64_t sim_host_charge_run(const struct sim *s, struct sim_node *n, uint32_t off, size_t len,
			     bool write);
void sim_host_read_run(struct sim_node *n, uint32_t off, uint8_t *buf, size_t len);
void sim_host_write_run(struct sim *s, struct sim_node *n, uint32_t off, const uint8_t *buf,
			size_t len);
uint64_t sim_host_flush(const struct sim *s, struct sim_node *n, uint32_t off, size_t len);
uint64_t sim_host_prefetch(const struct sim *s, struct sim_node *n, uint32_t off, size_t len);
/* Bytes per module = per-WID area.  Decision D-SIM-AREA (OQ-6, §4.5.6,
 * Fig. 4.16): each process's SO-DIMM area is one module's capacity C; WID
 * w owns [w*C, (w+1)*C) of the interleaved SO-DIMM address space.  Request
 * offsets are relative to the process's own area ("自 SO-DIMM 領域",
 * §4.6.4).  Inline, as sim_mtu: several calls per packet (host speed). */
static inline uint64_t sim_capacity(const struct sim_node *n)
{
	return n->cap_bytes;
}
static inline uint32_t sim_mtu(const struct sim_node *n)
{
	return n->mtu_bytes;
}
uint16_t sim_sma_lid(const struct sim *s, const struct sim_node *n);
void sim_pw_flags_issue(struct sim_wid *w, uint32_t dst, uint64_t len);
void sim_pw_flags_unwritten(struct sim_wid *w, uint32_t dst, uint64_t len);
void sim_pw_flags_written(struct sim_wid *w, uint32_t off, uint32_t len);
void sim_sdimm_init_done(struct sim *s, struct sim_node *n);
uint64_t sim_modstate(const struct sim_node *n);
/* An error flag rose: with halt_on_error the controller stops where it is
 * (Module State shows it) until Controller Reset (§4.5.5.2). */
void sim_error_raised(struct sim_node *n);
/* Count error event c, happening at node at, against the host request of
 * (org_node, org_wid) (D-SIM-CAUSE); sim_rx_cause: against the packet the
 * Receive Controller of n holds. */
void sim_cause(struct sim_node *at, unsigned org_node, unsigned org_wid, uint32_t org_req, enum sim_cause c);
void sim_rx_cause(struct sim_node *n, enum sim_cause c);
/* A packet of p's origin is sent / finished (taken and done, or dropped by
 * a reset) by a Receive Controller: the origin's w<W>_in_flight.  Inline:
 * once each per packet (host speed). */
static inline struct sim_caused *sim_pkt_origin(struct sim *s, const struct sim_pkt *p)
{
	struct sim_node *o = p->org_node >= 1 && p->org_node <= s->nnodes ? s->node[p->org_node - 1] : NULL;
	return o ? &o->caused[p->org_wid & 1u] : NULL;
}
static inline void sim_pkt_sent(struct sim *s, const struct sim_pkt *p)
{
	struct sim_caused *k = sim_pkt_origin(s, p);
	if (k)
		k->in_flight++;
}
static inline void sim_pkt_retired(struct sim_node *n, const struct sim_pkt *p)
{
	struct sim_caused *k = p ? sim_pkt_origin(n->sim, p) : NULL;
	if (k && k->in_flight)
		k->in_flight--;
}
/* The host request the running job of n serves. */
void sim_wc_job_origin(const struct sim_node *n, uint16_t *node, uint8_t *wid, uint32_t *req);

/* sodimm.c */
void sim_sd_phys_read(const struct sim_node *n, uint64_t addr, void *buf, size_t len);
int sim_sd_phys_write(struct sim_node *n, uint64_t addr, const void *buf, size_t len);
void sim_sd_free(struct sim_node *n);
void sim_sd_copy_add(struct sim_node *dst, uint64_t dst_addr, struct sim_node *src, uint64_t src_addr,
		     uint64_t len);
void sim_sd_copy_flush(struct sim *s);
/* Where [addr, addr + *len) of n's SO-DIMM is stored in one piece (every
 * page written, one chunk; *len shortened to the chunk's end), or NULL. */
const uint8_t *sim_sd_phys_ptr(const struct sim_node *n, uint64_t addr, size_t *len);
uint64_t sim_sd_bytes(const struct sim_node *n);
/* Process-area accessors: offset inside WID wid's area, bounds checked by the
 * caller; honour "SO-DIMM not initialised" (reads 0, writes dropped). */
void sim_sd_area_read(struct sim_node *n, unsigned wid, uint64_t off, void *buf, size_t len);
void sim_sd_area_write(struct sim_node *n, unsigned wid, uint64_t off, const void *buf, size_t len);
uint32_t sim_sd_area_read32(struct sim_node *n, unsigned wid, uint64_t off);
uint64_t sim_sd_contend(const struct sim *s, uint64_t dur, uint64_t other_until, uint64_t lines);

/* xfer.c */
void sim_pat_from_req(struct sim_pat *p, unsigned variant, uint32_t base, unsigned dtype,
		  unsigned iter, uint32_t size_stride_list, uint64_t total);
uint64_t sim_pat_run(const struct sim_pat *p, uint64_t pos);
uint64_t sim_pat_addr(struct sim_node *n, unsigned wid, const struct sim_pat *p, uint64_t pos);
/* Gather [pos, pos+len) of pattern p from WID wid's SO-DIMM area into buf;
 * bytes outside the area read as 0 and return false. */
bool sim_pat_gather(struct sim_node *n, unsigned wid, const struct sim_pat *p, uint64_t pos,
		uint8_t *buf, uint64_t len);
enum sim_target { SIM_TGT_SDIMM, SIM_TGT_PW, SIM_TGT_LLCM };
bool sim_pat_scatter(struct sim_node *n, unsigned wid, enum sim_target tg, const struct sim_pat *p,
		 uint64_t pos, const uint8_t *buf, uint64_t len);

/* wc.c */
void sim_wc_kick_lower(struct sim *s, struct sim_node *n, unsigned wid, unsigned sel,
		   uint64_t lower);
void sim_wc_accept(struct sim *s, struct sim_node *n);
void sim_wc_step(struct sim *s, struct sim_node *n);
bool sim_wc_rcq_push(struct sim *s, struct sim_node *n, const struct sim_req *r);
bool sim_wc_busy(const struct sim_node *n);
bool sim_wc_fifo_almost_full(const struct sim_node *n);
void sim_wc_reset(struct sim_node *n);
void sim_wc_wake(struct sim *s, struct sim_node *n);

/* rc.c */
void sim_rc_arrive(struct sim *s, struct sim_node *n, struct sim_pkt *p);
void sim_rc_step(struct sim *s, struct sim_node *n);
void sim_rc_retry(struct sim *s, struct sim_node *n);
void sim_rc_reset(struct sim *s, struct sim_node *n);
bool sim_rc_busy(const struct sim_node *n);
bool sim_ring_full(const struct sim_wid *w);
bool sim_ring_empty(const struct sim_wid *w);
void sim_ring_config(struct sim_wid *w, int what, uint64_t v);

/* ipush.c */
enum ipush_rx_result { IPUSH_RX_DONE, IPUSH_RX_STALL, IPUSH_RX_DROP };
enum ipush_rx_result sim_ipush_rx(struct sim *s, struct sim_node *n, const struct sim_pkt *p,
			      const struct dnet_pkt_hdr *h, unsigned hl, uint64_t dlen);
bool sim_ipush_receiving(const struct sim_node *n, unsigned dwid);
void sim_ipush_reset(struct sim_node *n);
bool sim_ipush_is_lhs_type(unsigned type);

/* switch.c */
struct sim_pkt *sim_pkt_alloc(unsigned nlines);
struct sim_pkt *sim_pkt_alloc_lines(struct sim *s, unsigned nlines);
void sim_pkt_free(struct sim *s, struct sim_pkt *p);
void sim_pkt_pool_free(struct sim *s);
bool sim_sw_can_send(const struct sim_node *src);
void sim_sw_send(struct sim *s, struct sim_node *src, struct sim_pkt *p, uint64_t depart);
void sim_sw_taken(struct sim *s, const struct sim_pkt *p);
void sim_sw_deliver(struct sim *s, unsigned node, struct sim_pkt *p);
/* Deferred payloads (host speed: one copy of the data instead of two).
 * sim_pkt_defer: p's data is len bytes at SO-DIMM address addr of src from
 * line hl on; sim_sw_send keeps it deferred on the fault-free path, else
 * fills it.  sim_pkt_fill copies it in (and unlinks it); sim_sd_fill_all:
 * every packet whose payload is still in n's SO-DIMM, before a store there. */
void sim_pkt_defer(struct sim_pkt *p, struct sim_node *src, unsigned hl, uint64_t addr, uint32_t len);
void sim_pkt_fill(struct sim_pkt *p);
void sim_sd_fill_all(struct sim_node *n);
/* No longer deferred (the payload is read or p is going): off the list. */
static inline void sim_pkt_unlink(struct sim_pkt *p)
{
	struct sim_node *src = p->lazy_src;
	if (!src)
		return;
	if (p->lazy_prev)
		p->lazy_prev->lazy_next = p->lazy_next;
	else
		src->lazy_head = p->lazy_next;
	if (p->lazy_next)
		p->lazy_next->lazy_prev = p->lazy_prev;
	p->lazy_src = NULL;
	p->lazy_prev = p->lazy_next = NULL;
}

/* faults.c */
uint64_t sim_faults_rto(const struct sim *s);
/* Add the rules of text ("drop:5%+dup:1%:to:3+seed:7", or the same with
 * spaces and ';'): -DNET_EINVAL naming the bad word, nothing added. */
int sim_faults_parse(struct sim_faults *f, const char *text, struct dnet_err *err);
static inline bool sim_faults_on(const struct sim *s) /* inline: once per packet */
{
	return s->faults.nrules != 0;
}
/* Decide what the rules do to a packet from node `from` to node `to`
 * (ack: an ACK/NAK); counts what fired at the sender. */
void sim_faults_apply(struct sim *s, struct sim_node *from, unsigned to, bool ack,
		      struct sim_fault_fx *fx);
const char *sim_fault_kind_name(enum sim_fault_kind k);
/* One rule as the text the parser reads back. */
void sim_faults_rule_text(const struct sim_fault_rule *r, char *buf, size_t n);

/* params.c: the backend's parameters (dnet/param.h) */
const struct dnet_param *sim_params(struct dnet_dev *dev, unsigned *n, struct dnet_err *err);
int sim_param_get(struct dnet_dev *dev, const struct dnet_param *p, char *buf, size_t len,
		  struct dnet_err *err);
int sim_param_set(struct dnet_dev *dev, const struct dnet_param *p, const char *value,
		  struct dnet_err *err);

#endif
