/* Tests of backends/sim/xfer.c, the access patterns of the vector
 * primitives: contiguous, stride and list, on the local side (VSS/VSI,
 * VLS/VLI) and on the remote side of RVSS/RVSI, for every element size
 * (thesis §4.6.3-§4.6.6,
 * Fig. 4.17-4.22).  Element positions and every expected byte are computed
 * here from the spec's rules. */
#include "test_spec_enc.h"

static void put32(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)v; b[1] = (uint8_t)(v >> 8); b[2] = (uint8_t)(v >> 16); b[3] = (uint8_t)(v >> 24);
}

static void test_vsi_vli(void)
{
	struct dnet_dev *d = sim_open("sim");
	/* Index array at SO-DIMM 0x100: 0x40, 0x1000, 0x10, 0x800 */
	uint8_t idx[16];
	put32(idx, 0x40); put32(idx + 4, 0x1000); put32(idx + 8, 0x10); put32(idx + 12, 0x800);
	sd_put(d, 0x100, idx, 16);
	uint8_t ww[64];
	fill(ww, sizeof ww, 4);
	CHECK_OK(dnet_write_block(d, DNET_WW_WID(0), ww, 64, &E), &E);
	/* VSI, 16-byte elements (DTYPE 4), 4 of them, base 0x50000. */
	issue_x(d, 0, 0, DNET_OT_VSI, 4, 4, 0, 0, 0, 0x100, 0x0, 0x50000, NULL);
	settle(d);
	uint8_t got[16];
	const uint32_t off[4] = { 0x40, 0x1000, 0x10, 0x800 };
	for (unsigned i = 0; i < 4; i++) {
		sd_get(d, 0x50000 + off[i], got, 16);
		CHECK(memcmp(got, ww + 16 * i, 16) == 0);
	}
	/* VLI gathers them back into PW#2 in order. */
	issue_x(d, 0, 0, DNET_OT_VLI, 4, 4, 0, 0, 0, 0x100, 0x50000, 0x400, NULL);
	wait_eq(d, DNET_UREG_WID(0) + DNET_UR_PW_FLAG, 0xf00, 0xf00);
	uint8_t pw[64];
	CHECK_OK(dnet_read_block(d, DNET_PW_WID(0) + 0x400, pw, 64, &E), &E);
	CHECK(memcmp(pw, ww, 64) == 0);
	/* VLS: 4-byte elements every 0x10 from 0x50000 */
	issue_x(d, 0, 0, DNET_OT_VLS, 2, 8, 0, 0, 0, 0x10, 0x50000 + 0x800, 0x600, NULL);
	wait_eq(d, DNET_UREG_WID(0) + DNET_UR_PW_FLAG, 0xf000, 0xf000);
	uint8_t exp[32], src[0x80];
	sd_get(d, 0x50800, src, sizeof src);
	for (unsigned i = 0; i < 8; i++)
		memcpy(exp + 4 * i, src + 0x10 * i, 4);
	CHECK_OK(dnet_read_block(d, DNET_PW_WID(0) + 0x600, pw, 32, &E), &E);
	CHECK(memcmp(pw, exp, 32) == 0);
	CHECK_EQ(ureg(d, 0, DNET_UR_PRIM_COUNTER), 2ull << 10 | 1ull << 20);
	dnet_close(d);
}

/* RVSS / RVSI at MTU 256 (§5.3.7, D-SIM-MTU, D-SIM-RVSI-LIST): 3-line
 * headers, whole 16-byte elements per packet ((256 - 24) / 16 = 14), the
 * remote side scatters with Stride or with the list in its own SO-DIMM. */
static void test_rvss_rvsi_packets(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=2,mtu=256");
	uint8_t src[640], got[16], idx[160];
	fill(src, sizeof src, 18);
	sd_put(d, 0x8000, src, sizeof src);
	node(d, 2);
	for (unsigned i = 0; i < 40; i++)
		le32(idx + 4 * i, (39 - i) * 0x20);
	sd_put(d, 0x200, idx, sizeof idx);
	node(d, 1);
	kick(d, 0, 0, LO(DNET_OT_RVSS, 4, 40, 0, 2, 1, 0x40), UP(0x8000, 0x10000));
	settle(d);
	CHECK_EQ(stat(d, "packets_sent"), 3);
	kick(d, 0, 0, LO(DNET_OT_RVSI, 4, 40, 0, 2, 1, 0x200), UP(0x8000, 0x20000));
	settle(d);
	CHECK_EQ(stat(d, "packets_sent"), 6);
	CHECK_EQ(prim(d, 0, DNET_FAM_RVS), 2);
	node(d, 2);
	CHECK_EQ(ureg(d, 0, DNET_UR_PKT_COUNTER), 6);
	int bad = 0;
	for (unsigned i = 0; i < 40; i++) {
		sd_get(d, 0x10000 + 0x40 * i, got, 16);
		bad += memcmp(got, src + 16 * i, 16) != 0;
		sd_get(d, 0x20000 + (39 - i) * 0x20, got, 16);
		bad += memcmp(got, src + 16 * i, 16) != 0;
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(st_lo_at(d, 0, 0), STLO(DNET_OT_RVSS, 4, 40, 0, 1, 640));
	CHECK_EQ(st_hi_at(d, 0, 0), UP(0x10000, 0x10000 + 28 * 0x40));
	CHECK_EQ(st_lo_at(d, 0, 16), STLO(DNET_OT_RVSI, 4, 40, 0, 1, 640));
	CHECK_EQ(st_hi_at(d, 0, 16), UP(0x20000, 0x20000));
	CHECK_EQ(tail(d, 0), 32);
	dnet_close(d);
}

/* VSS/VLS and VSI/VLI round trips for every SO-DIMM element size (DTYPE
 * 2..7, Tab. 4.5: 4..128 bytes) with a full window and a short Iteration:
 * element i goes to SO-DIMM base + i x Stride (or base + idx[i]) and comes
 * back to PW offset i x E (Fig. 4.18-4.22). */
static void test_vector_sweep(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=1");
	uint8_t ww[0x400], pw[0x200], idx[4 * 128], el[128];
	fill(ww, sizeof ww, 60);
	ww_put(d, 0, 0x200, ww, sizeof ww); /* WW#1 and WW#2 */
	unsigned vs = 0, vl = 0;
	for (unsigned dt = 2; dt <= 7; dt++) {
		uint32_t e = 1u << dt;
		const unsigned iters[2] = { 512 / e, 3 };
		for (unsigned k = 0; k < 2; k++) {
			unsigned it = iters[k];
			uint32_t stride = 2 * e, B = 0x100000 * dt + 0x10000 * k;
			int bad = 0;
			kick(d, 0, 0, LO(DNET_OT_VSS, dt, it, 0, 0, 0, stride), UP(0x200, B));
			for (unsigned i = 0; i < it; i++)
				le32(idx + 4 * i, (it - 1 - i) * 3 * e);
			uint32_t L = B + 0x8000, B2 = B + 0x9000;
			sd_put(d, L, idx, 4 * it);
			kick(d, 0, 0, LO(DNET_OT_VSI, dt, it, 0, 0, 0, L), UP(0x400, B2));
			kick(d, 0, 0, LO(DNET_OT_VLS, dt, it, 0, 0, 0, stride), UP(B, 0x400));
			wait_eq(d, UR(0, DNET_UR_PW_FLAG), 0xf00, 0xf00);
			kick(d, 0, 0, LO(DNET_OT_VLI, dt, it, 0, 0, 0, L), UP(B2, 0x600));
			wait_eq(d, UR(0, DNET_UR_PW_FLAG), 0xf000, 0xf000);
			vs += 2;
			vl += 2;
			for (unsigned i = 0; i < it; i++) {
				sd_get(d, B + i * stride, el, e);
				bad += memcmp(el, ww + i * e, e) != 0;
				sd_get(d, B2 + (it - 1 - i) * 3 * e, el, e);
				bad += memcmp(el, ww + 0x200 + i * e, e) != 0;
			}
			pw_get(d, 0, 0x400, pw, 0x200);
			bad += memcmp(pw, ww, it * e) != 0;
			pw_get(d, 0, 0x600, pw, 0x200);
			bad += memcmp(pw, ww + 0x200, it * e) != 0;
			CHECK_EQ(bad, 0);
		}
	}
	settle(d);
	CHECK_EQ(prim(d, 0, DNET_FAM_VS), vs & 0x3ff);
	CHECK_EQ(prim(d, 0, DNET_FAM_VL), vl & 0x3ff);
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS), CS_OK | 1u << 8 | 1u << 11);
	dnet_close(d);
}

int main(void)
{
	RUN(test_vsi_vli);
	RUN(test_rvss_rvsi_packets);
	RUN(test_vector_sweep);
	return t_summary("test_sim_xfer");
}
