/* sim: the cost of each modelled step, in one table (timing.c).
 * A later issue calibrates it against spec/evaluation.md E1 and E5. */
#ifndef SIM_TIMING_H
#define SIM_TIMING_H

#include <stdint.h>

struct sim_timing {
	/* clocks */
	uint32_t clk_ns;
	/* host side (per access, charged to virtual time by the accessor) */
	uint32_t host_uc_read_ns;
	uint32_t host_uc_write_ns;
	uint32_t host_wc_8b_ns;
	uint32_t host_wb_read_8b_ns;
	uint32_t host_clflush_64b_ns;
	/* Window Controller (clocks of clk_ns) */
	uint32_t cfg_forward_clk;
	uint32_t acc_clk;
	uint32_t acc_pre_clk;
	uint32_t botf_setup_clk;
	uint32_t botf_end_clk;
	uint32_t line_clk;
	uint32_t pu_first_clk;
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
