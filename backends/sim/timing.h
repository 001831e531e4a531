/* sim: the cost of each modelled step, in one table (timing.c),
 * calibrated on docs/timing-model.md E1 and E5 and the hardware constants
 * only (docs/timing-model.md). */
#ifndef SIM_TIMING_H
#define SIM_TIMING_H

#include <stdint.h>

struct sim_timing {
	/* clocks */
	uint32_t clk_ns;
	/* host side (per access, charged to virtual time by the accessor) */
	uint32_t host_uc_read_ns;
	uint32_t host_uc_write_ns;
	uint32_t host_bus_line_ns;     /* one 64-byte burst on the memory bus */
	uint32_t host_wc_drain_ns;     /* first UC access after WC stores */
	uint32_t host_wb_miss_ns;      /* a line of PW / LH Buffer filled on a read miss */
	uint32_t host_l2_8b_ns;        /* 8 bytes read or written in the L2 cache */
	uint32_t host_l2_bytes;        /* L2 size (Tab. 6.1) */
	uint32_t host_l2_ways;         /* L2 associativity: the host cache model (bench) */
	uint32_t host_page_bytes;      /* a page: where a host buffer's lines fall in L2 */
	uint32_t host_clflush_64b_ns;
	/* Window Controller (clocks of clk_ns) */
	uint32_t cfg_forward_clk;
	uint32_t acc_clk;
	uint32_t acc_pre_clk;
	uint32_t botf_setup_clk;
	uint32_t botf_end_clk;
	uint32_t line_clk;
	uint32_t pu_first_clk;
	uint32_t pu_8b_ns;             /* Prefetch Unit SO-DIMM read rate */
	uint32_t pu_burst_lines;       /* PU reads whole bursts of this many lines */
	uint32_t sd_contend_8b_ps;     /* per line when PU and WU share the SO-DIMM (picoseconds) */
	uint32_t sd_collide_ns;        /* once, for a transfer that finds the other engine busy */
	uint32_t pu_elem_clk;
	uint32_t pu_list_clk;
	uint32_t wu_setup_clk;
	uint32_t wu_write_clk;
	uint32_t rvs_setup_clk;
	uint32_t rvs_pkt_gap_clk;
	uint32_t rvl_clk;
	uint32_t end_clk;
	/* network */
	uint32_t swif_ns;
	uint32_t switch_ns;
	/* Receive Controller / Status Write Unit (clocks) */
	uint32_t rc_hdr_clk;
	uint32_t rc_req_clk;
	uint32_t rc_status_clk;
	uint32_t ipush_amt_clk;
	uint32_t lh_entry_clk;
	/* slow events */
	uint64_t sdimm_init_ns;
	uint64_t sma_up_ns;
	uint64_t sma_reset_ns;
};

extern const struct sim_timing sim_timing_default;

#endif
