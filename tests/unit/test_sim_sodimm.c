/* Tests of backends/sim/sodimm.c, the two SO-DIMMs: 8-byte interleaving
 * (address bit 3 selects the module), observed through the sparse storage's
 * chunk count (thesis §4.5.6, Fig. 4.16).
 * The expected module offsets are computed here. */
/* Decisions pinned here (docs/decisions.md): D-SIM-AREA. */
#include "test_spec_enc.h"

/* Two SO-DIMMs interleaved every 8 bytes (§4.5.6): address bit 3 selects
 * the module.  Observed through the sparse storage: 8 bytes at 0x0 and at
 * 0x10 share one module's first chunk, 8 bytes at 0x8 need the other
 * module.  Module offset of address a = (a >> 4) * 8 + a % 8, so 0x1fff0
 * is still in the first 64 KB chunk and 0x20000 is not. */
static void test_interleave(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=1");
	uint64_t one = 0x1122334455667788ull, chunk = stat(d, "sodimm_bytes");
	CHECK_EQ(chunk, 0);
	sd_put(d, 0x0, &one, 8);
	chunk = stat(d, "sodimm_bytes");
	CHECK(chunk > 0);
	sd_put(d, 0x10, &one, 8);
	sd_put(d, 0x1fff0, &one, 8);
	CHECK_EQ(stat(d, "sodimm_bytes"), chunk);
	sd_put(d, 0x8, &one, 8);
	CHECK_EQ(stat(d, "sodimm_bytes"), 2 * chunk);
	sd_put(d, 0x20000, &one, 8);
	CHECK_EQ(stat(d, "sodimm_bytes"), 3 * chunk);
	/* A VS of 16 bytes touches both modules at one line each. */
	struct dnet_dev *e = sim_open("sim:nodes=1");
	uint8_t ww[16];
	fill(ww, 16, 1);
	ww_put(e, 0, 0, ww, 16);
	kick(e, 0, 0, LO(DNET_OT_VS, 0, 0, 0, 0, 0, 8), UP(0, 0x40));
	settle(e);
	CHECK_EQ(stat(e, "sodimm_bytes"), chunk);
	kick(e, 0, 0, LO(DNET_OT_VS, 0, 0, 0, 0, 0, 8), UP(8, 0x48));
	settle(e);
	CHECK_EQ(stat(e, "sodimm_bytes"), 2 * chunk);
	dnet_close(e);
	dnet_close(d);
}

int main(void)
{
	RUN(test_interleave);
	return t_summary("test_sim_sodimm");
}
