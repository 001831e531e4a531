/* sim: THE timing table.  Every cost the model charges comes from here.
 *
 * Sources: spec/hardware.md 7.7 (thesis chapter 6), 6.3 (Tab. 7.4/7.5),
 * spec/evaluation.md E1 (BOTF, Tab. 6.2) and E5 (RVS SO-DIMM to SO-DIMM).
 * Numbers marked "guess" are placeholders for the calibration issue; do not
 * tune them towards the withheld (holdout) results.
 */
#include "sim/timing.h"

const struct sim_timing sim_timing_default = {
	/* Core Logic runs at 100 MHz (§4.1): 10 ns per clock. */
	.clk_ns = 10,

	/* Host UC read latency on PC-1600: about 0.189 us (§6.2.1). */
	.host_uc_read_ns = 189,
	/* UC write: Tab. 6.2 gives 0.407 us to write a 512 B image (8 WC bursts
	 * of 64 B, 8 x 40 ns) and issue the BOTF (one UC write): 407-320 = 87. */
	.host_uc_write_ns = 87,
	/* WC stores: a 64 B burst at PC-1600's 1.6 GB/s peak is 40 ns, i.e. 5 ns
	 * per 8 bytes (DDR-200, 64-bit bus; §3.2.1). */
	.host_wc_8b_ns = 5,
	/* WB reads of Prefetch Window / LH Buffer after prefetch: cache-line
	 * fills at the same bus rate (guess). */
	.host_wb_read_8b_ns = 5,
	/* clflush of one line (guess). */
	.host_clflush_64b_ns = 10,

	/* Configuration / command writes are forwarded on the next clock (§5.2.1). */
	.cfg_forward_clk = 1,
	/* Request Acceptor NOP -> REQ -> REQ IN before the executor sees a
	 * request (Fig. 5.9); 1 clock when it pre-read the request while the
	 * executor was busy (§5.3.1). */
	.acc_clk = 3,
	.acc_pre_clk = 1,
	/* BOTF: PRIM + BOTF1 before the first line, END1 + END2 after the last
	 * (Fig. 5.11).  With acc_clk this gives 10 clocks = 0.100 us for a 24 B
	 * image, the RTL figure of §6.2.1 (512 B gives 0.71 us vs 0.660 us in
	 * Tab. 6.2: calibration issue). */
	.botf_setup_clk = 2,
	.botf_end_clk = 2,
	/* One 66-bit line per clock to SWIF: 800 MB/s (§5.3). */
	.line_clk = 1,
	/* Prefetch Unit: request + SO-DIMM arbitration + read latency before the
	 * first data (guess, mirrors the WU's 4 + 6 clocks of Tab. 7.4). */
	.pu_first_clk = 8,
	/* Extra clock per element of a stride/list access, and per index read
	 * of a list access (guess). */
	.pu_elem_clk = 1,
	.pu_list_clk = 2,
	/* Write Unit: size/address calc 2, request 1, receive 1, arbitration
	 * request 1, grant 1 = 6; SO-DIMM write 6 (Tab. 7.4). */
	.wu_setup_clk = 6,
	.wu_write_clk = 6,
	/* RVS: PRIM + RVS1 (header build) before the first packet (Fig. 5.15). */
	.rvs_setup_clk = 2,
	/* Gap between RVS packets (RVS1..RVS3 waiting for PU data).  With MTU
	 * 2048 (256 lines incl. 2 header lines) 23 clocks give 2032 B per
	 * 2.79 us = 728 MB/s, matching E5's 727.20 MB/s maximum (§6.3.1). */
	.rvs_pkt_gap_clk = 23,
	/* RVL request packet: PRIM then 4 lines (Fig. 5.14). */
	.rvl_clk = 1,
	/* *_END states reset internal registers: 1 clock. */
	.end_clk = 1,

	/* SWIF encapsulation, one side (guess; calibration issue). */
	.swif_ns = 100,
	/* Voltaire ISR6000 switch latency about 0.385 us (§6.2.3). */
	.switch_ns = 385,

	/* Receive Controller, Tab. 7.4: detect 0 + request header 1 + 1st line 1
	 * + 2nd line 1 + analyse 1 = 4; status write 4.  (The WU part is
	 * wu_setup_clk + wu_write_clk: 4 + 6 + 6 + 4 = 20 clocks = 0.20 us.) */
	.rc_hdr_clk = 4,
	/* RVL request handed to the WC's second FIFO (guess). */
	.rc_req_clk = 1,
	.rc_status_clk = 4,
	/* IPUSH, Tab. 7.5: Head/Tail fetch from LLCM 1 + ring start 1 + ring
	 * end 1 + room check 1 = 4 clocks more than PUSH (24 vs 20 for a
	 * 24-byte packet, §7.1.6). */
	.ipush_amt_clk = 4,
	/* LHS: the RC writes the 8 lines of an LH entry into Block RAM, one
	 * 64-bit line per clock like the Prefetch Window path (§5.1.4) [I]. */
	.lh_entry_clk = 8,

	/* SO-DIMM Init: DDR power-up needs 200 us (JEDEC; the thesis gives no
	 * number). */
	.sdimm_init_ns = 200000,
	/* Cold start: the SMA reports link-up after 10 us (guess); an SMA
	 * Software Reset takes the link down for 10 us (guess). */
	.sma_up_ns = 10000,
	.sma_reset_ns = 10000,
};
