/* dsh bench: the mechanism and the constants behind each withheld figure
 * (issue 25: every prediction earned from the thesis's mechanism, named
 * beside it, as the toolkit bench names each figure's limit).
 *
 * One row per prediction, found by its experiment and the start of its
 * title.  The constants are those of backends/sim/timing.c that move the
 * figure most (scripts/timing-sensitivity.sh; docs/timing-model.md,
 * "Sensitivity" and "Mechanism per withheld figure", prints the same rows).
 * test_bench checks that every prediction has its row.
 */
#include <stdbool.h>
#include <string.h>
#include "bench.h"

struct why {
	const char *exps;     /* the experiments it is of, "E2 E4" */
	const char *prefix, *mechanism, *constants;
};

#define E1_PIPE "E1's BOTF pipeline (write the image through write-combining, one UC store to issue, " \
		"the Window Controller sends one line a clock; k windows overlap the two)"
#define RVS_RTT "RVS issue (two UC stores), Prefetch Unit first data, SWIF, switch, Receive Controller " \
		"and Write Unit (Tab. 7.4), status write, Status Next Write Address seen by one UC read"
#define TO_HOST "per 2 KB: clflush of the Prefetch Window, 4 VLs (two UC stores each), the flag poll, " \
		"PREFETCHNTA (a DIMM access, then a bus burst a line), the copy out of L2"

static const struct why whys[] = {
	{ "E2", "max throughput", E1_PIPE ", on both hosts at once: BOTF's send (Write Window, SWIF out) and "
	  "receive (SWIF in, Write Unit) share no resource in the model, so twice one way",
	  "line_clk, host_bus_line_ns, clk_ns, host_uc_*" },
	{ "E2", "min latency", "E1's one-way latency on both hosts at once (no collision: BOTF's send does "
	  "not read the SO-DIMM the Write Unit writes, unlike RVS's D-SIM-SD-CONTEND)",
	  "line_clk, host_uc_read_ns, host_uc_write_ns, clk_ns, cfg_forward_clk" },
	/* E3 and E6 are calibration since issue 34: no row (E7 has PUSH's rows too). */
	{ "E4", "max throughput", E1_PIPE " at 2-64 KB, one way or both (no shared resource)",
	  "line_clk, host_bus_line_ns, clk_ns, host_uc_write_ns, host_wc_drain_ns" },
	{ "E4", "max ping-pong", E1_PIPE " at 2-64 KB each way, one turn-around a message",
	  "line_clk, host_bus_line_ns, clk_ns, host_uc_write_ns" },
	/* E7 repeats E6 for PUSH ("the PUSH curves are the same data as Fig.
	 * 6.12", docs/timing-model.md E7): its IPUSH rows first, then
	 * the rows of both. */
	{ "E7", "max throughput, SO-DIMM to SO-DIMM (IPUSH)", "as PUSH, plus Tab. 7.5's 4 clocks a "
	  "reception (AMT Head/Tail)", "line_clk, pu_8b_ns, clk_ns" },
	{ "E7", "RTT/2, 24 B message (16 B header + 8 B data), IPUSH", RVS_RTT ", with Tab. 7.5's 24 "
	  "clocks of receive logic instead of 20", "clk_ns, switch_ns, host_uc_write_ns, line_clk, swif_ns" },
	{ "E7", "min RTT/2 with copy to main memory, IPUSH", RVS_RTT ", then two UC reads of the status "
	  "for the address, one VL of the message (clflush, issue, flag poll, PREFETCHNTA, copy) and the "
	  "Head store (D-BENCH-E7-HEAD)", "host_uc_write_ns, host_uc_read_ns, clk_ns, switch_ns" },
	{ "E7", "max throughput, SO-DIMM to SO-DIMM", "RVS each way of a ping-pong: the Prefetch Unit's "
	  "streaming rate (E5) and the SWIF line rate, one turn-around a message", "line_clk, pu_8b_ns, clk_ns" },
	{ "E7", "max throughput, SO-DIMM to Host (Area Fixed)", "the RVS ping-pong plus, on each reception, "
	  TO_HOST " into a 64-byte destination always in the cache (IPUSH: also the status read for the "
	  "address and Head written back)", "line_clk, pu_8b_ns, host_l2_8b_ns, host_clflush_64b_ns, host_bus_line_ns" },
	{ "E7", "max throughput, SO-DIMM to Host", "the RVS ping-pong plus, on each reception, " TO_HOST
	  " into a destination as large as the message, whose lines stay in the 8-way L2 while its "
	  "randomly placed pages fit their sets (D-BENCH-L2: the curve falls from about 256 KB)",
	  "line_clk, pu_8b_ns, host_l2_8b_ns, host_clflush_64b_ns, host_bus_line_ns, host_l2_ways" },
	{ "E7", "RTT/2, 24 B", RVS_RTT, "clk_ns, switch_ns, host_uc_write_ns, line_clk, swif_ns" },
	{ "E7", "min RTT/2 with copy", RVS_RTT ", then one VL of the message: clflush, VL issue, flag "
	  "poll, PREFETCHNTA, copy", "host_uc_write_ns, clk_ns, switch_ns, host_uc_read_ns, pu_burst_lines" },
	{ "E7", "IPUSH - PUSH", "Tab. 7.5 against Tab. 7.4: 4 clocks more receive logic a one-way "
	  "reception", "ipush_amt_clk, clk_ns" },
	{ "E8", "", "no timing: the most distinct partners of any process in the application's "
	  "point-to-point traffic (D-BENCH-E8-*)", "none" },
	{ "E9", "IPUSH+LHSv1 - IPUSH Only, mean while", "LHS hands envelope and data to the host in the "
	  "LH Buffer entry: one write-back line poll (clflush after each failed poll, §7.2.2) replaces "
	  "the status poll, the two UC status reads and IPUSH Only's two VLs (D-BENCH-E9-READS: flush, "
	  "issue, flag poll, PREFETCHNTA each)", "host_uc_read_ns, host_uc_write_ns, clk_ns, line_clk" },
	{ "E9", "IPUSH+LHSv1 - IPUSH Only, mean for", "as while it fits, but the data past 48 B still "
	  "comes by one VL from the IPUSH ring", "host_uc_read_ns, line_clk, host_uc_write_ns, host_clflush_64b_ns" },
	{ "E9", "IPUSH+LHSv2 - VL+IPUSH+LHSv1", "the sender's VL of the data into the Prefetch Window "
	  "(flush, issue, flag poll, PREFETCHNTA) before its BOTF, which LHSv2 saves by having the "
	  "controller read the SO-DIMM", "line_clk, host_uc_read_ns, host_wb_miss_ns, host_uc_write_ns" },
};

/* exp is one of the words of exps */
static bool of(const char *exps, const char *exp)
{
	size_t n = strlen(exp);
	for (const char *p = exps; (p = strstr(p, exp)); p += n)
		if ((p == exps || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return true;
	return false;
}

const char *bench_why(const char *exp, const char *what, const char **constants)
{
	for (size_t i = 0; i < sizeof whys / sizeof whys[0]; i++)
		if (of(whys[i].exps, exp) && !strncmp(what, whys[i].prefix, strlen(whys[i].prefix))) {
			*constants = whys[i].constants;
			return whys[i].mechanism;
		}
	*constants = NULL;
	return NULL;
}
