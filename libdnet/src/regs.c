/* The register and bit-field table (regs.h, thesis
 * Tab. 4.8, Tab. 4.12, App. A, App. B).  Names follow the options of the
 * thesis's debug shell (App. C, Tab. C.2-C.4) where it had one. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "dnet/codes_int.h"
#include "dnet/map.h"
#include "dnet/regs.h"
#include "dnet/suggest.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define F(name, lsb, width, desc) { name, lsb, width, desc, NULL, NULL, 0 }
#define FC(name, lsb, width, desc, tab) { name, lsb, width, desc, tab, NULL, 0 }
#define FS(name, lsb, width, desc, st) { name, lsb, width, desc, NULL, st, N(st) }

static const char *const rc_states[] = {
	"normal", "early_sop (1st DW of next packet before EOP)",
	"hflag_mismatch (hflag vs header lines)", "illegal_rvl (RVL packet with data)",
};
static const char *const swif_states[] = { "down", "state1", "state2", "up" };

/* Controller Status (Tab. A.1). */
static const struct dnet_field f_ctl_status[] = {
	F("req_pending", 0, 1, "request written but not yet in the Request FIFO"),
	F("sdimm_init_done", 1, 1, "SO-DIMM initialisation complete"),
	F("fifo_almost_full", 2, 1, "Request FIFO almost full: do not issue"),
	F("status_full", 3, 1, "packet receive status ring full"),
	F("status_empty", 4, 1, "packet receive status ring empty"),
	F("ww0_done", 5, 1, "WW#0: SO-DIMM write (VS family) complete"),
	F("ww0_src_overrun", 6, 1, "WW#0: source + size past the window end, clipped"),
	F("ww0_dst_overrun", 7, 1, "WW#0: destination + size past the own SO-DIMM area, clipped"),
	F("ww1_done", 8, 1, "WW#1: SO-DIMM write complete"),
	F("ww1_src_overrun", 9, 1, "WW#1: source overrun"),
	F("ww1_dst_overrun", 10, 1, "WW#1: destination overrun"),
	F("ww2_done", 11, 1, "WW#2: SO-DIMM write complete"),
	F("ww2_src_overrun", 12, 1, "WW#2: source overrun"),
	F("ww2_dst_overrun", 13, 1, "WW#2: destination overrun"),
	F("ww3_done", 14, 1, "WW#3: SO-DIMM write complete"),
	F("ww3_src_overrun", 15, 1, "WW#3: source overrun"),
	F("ww3_dst_overrun", 16, 1, "WW#3: destination overrun"),
	F("rc_overrun", 17, 1, "Receive Controller: data went past the receive area"),
	FS("rc_state", 18, 2, "Receive Controller state", rc_states),
};

/* Primitive Counter (Tab. A.2). */
static const struct dnet_field f_prim_counter[] = {
	F("botf", 0, 10, "BOTF completed"),
	F("vl", 10, 10, "VL family completed"),
	F("vs", 20, 10, "VS family completed"),
	F("rvl", 30, 10, "RVL family completed"),
	F("rvs", 40, 10, "RVS family completed"),
	F("ipush", 50, 10, "IPUSH family completed"),
};

/* Prefetch Window Flag (Tab. A.3): bit k of a window = 128-byte line k. */
static const struct dnet_field f_pw_flag[] = {
	F("pw0", 0, 4, "PW#0 line flags (1111 = complete)"),
	F("pw1", 4, 4, "PW#1 line flags"),
	F("pw2", 8, 4, "PW#2 line flags"),
	F("pw3", 12, 4, "PW#3 line flags"),
};

static const struct dnet_field f_pkt_counter[] = {
	F("count", 0, 64, "packets received by this process"),
};
static const struct dnet_field f_ipush_area[] = {
	F("size", 0, 16, "size of every IPUSH receive ring, 4 KB units (D-SIM-IPUSH-AREA)"),
};
static const struct dnet_field f_lhb_tail[] = {
	F("tail", 0, 12, "LH Buffer Next Write Address (controller)"),
};
static const struct dnet_field f_lhb_head[] = {
	F("head", 0, 12, "LH Buffer Next Read Address (host)"),
};
/* Module State (Tab. A.4); sub-fields in modstate.h. */
static const struct dnet_field f_module_state[] = {
	F("wc", 0, 17, "Window Controller (Accepter [3:0], Executer [16:4])"),
	F("rc", 17, 20, "Receive Controller (main, PWrite)"),
	F("wu", 37, 14, "Write Unit (rctl, wctl, wu_ipush, wu_stride)"),
	F("pu", 51, 7, "Prefetch Unit (main, pu_ctl, pu_write)"),
};
static const struct dnet_field f_status_init[] = {
	F("addr", 0, 15, "start of the receive status ring (LLCM byte address)"),
};
static const struct dnet_field f_status_size[] = {
	FC("code", 0, 7, "ring size, one-hot (Tab. A.5)", &dnet_codetab_status_area),
};
static const struct dnet_field f_status_tail[] = {
	F("tail", 0, 15, "Status Next Write Address (controller)"),
};
static const struct dnet_field f_status_head[] = {
	F("head", 0, 15, "Status Next Read Address (host)"),
};
static const struct dnet_field f_cmd_ex_flag[] = {
	F("enable", 0, 1, "1: every request is 192 bits (Upper, Ex, Lower)"),
};
static const struct dnet_field f_any[] = {
	F("value", 0, 64, "any value: the write itself acts"),
};
/* Command Lower / Upper / Ex (Tab. 4.4); positions from request.h. */
static const struct dnet_field f_cmd_lower[] = {
	F("otype", 0, 5, "primitive code (Tab. 4.13)"),
	FC("dtype", 5, 3, "element size code (Tab. 4.5)", &core_codetab_dtype),
	F("iter", 8, 8, "element count"),
	F("dwid", 16, 1, "remote WID"),
	F("dclid", 18, 12, "remote CLID"),
	F("eflag", 30, 1, "receiver writes a status"),
	F("size", 32, 32, "Size / List / Stride"),
};
static const struct dnet_field f_cmd_upper[] = {
	F("srcoff", 0, 32, "source offset"),
	F("dstoff", 32, 32, "destination offset"),
};
static const struct dnet_field f_cmd_ex[] = {
	F("otype", 0, 5, "OTYPE (Ex)"),
	FC("dtype", 5, 3, "DTYPE (Ex)", &core_codetab_dtype),
	F("iter", 8, 8, "Iteration (Ex)"),
	F("size", 32, 32, "Size / Stride / List (Ex)"),
};

/* System Register (App. B).  Decision D-SDIMM-INIT-BIT (OQ-11): App. B's
 * "write 1 to the 1bit目" is bit 0, as Fig. B.1 draws it. */
static const struct dnet_field f_sdimm_init[] = {
	F("init", 0, 1, "write 1: initialise the SO-DIMMs (decision D-SDIMM-INIT-BIT)"),
};
static const struct dnet_field f_capacity[] = {
	FC("code", 0, 6, "capacity per module, one-hot (Tab. 4.10)", &core_codetab_capacity),
};
static const struct dnet_field f_mtu[] = {
	FC("code", 0, 5, "MTU, one-hot (Tab. 4.11)", &core_codetab_mtu),
};
static const struct dnet_field f_sma_lid[] = {
	F("lid", 0, 16, "LID obtained by the Subnet Manager Agent"),
	FS("swif", 16, 2, "SWIF status (3 = link can communicate)", swif_states),
};
static const struct dnet_field f_lid[] = {
	F("lid", 0, 16, "own LID"),
};
static const struct dnet_field f_pgid[] = {
	F("pgid", 0, 8, "process group ID"),
};
static const struct dnet_field f_amt[] = {
	F("addr", 0, 12, "LLCM address of the sender's AMT entry"),
	F("wid", 12, 2, "sender WID (bit 12 meaningful)"),
	F("lid", 14, 16, "sender LID"),
};

#define R DNET_ACC_R
#define W DNET_ACC_W
#define U DNET_BLK_USER
#define S DNET_BLK_SYSTEM
#define FL(a) a, N(a)
#define PW DNET_RF_PER_WID

static const struct dnet_reg regs[] = {
	{ "cmd0_lower", "Command0 Lower", U, DNET_UR_CMD0_LOWER, W, 64, ~0ull,
	  DNET_RF_KICK | PW, FL(f_cmd_lower), "request low 64 bits; writing it kicks (received into SO-DIMM)" },
	{ "cmd0_upper", "Command0 Upper", U, DNET_UR_CMD0_UPPER, W, 64, ~0ull,
	  PW, FL(f_cmd_upper), "request high 64 bits" },
	{ "cmd_ex", "Command Ex", U, DNET_UR_CMD_EX, W, 64, 0xffffffff0000ffffull,
	  PW, FL(f_cmd_ex), "extended 64 bits, used while Command Ex Flag = 1" },
	{ "cmd1_lower", "Command1 Lower", U, DNET_UR_CMD1_LOWER, W, 64, ~0ull,
	  DNET_RF_KICK | PW, FL(f_cmd_lower), "request low 64 bits; writing it kicks (received into Prefetch Window)" },
	{ "cmd1_upper", "Command1 Upper", U, DNET_UR_CMD1_UPPER, W, 64, ~0ull,
	  PW, FL(f_cmd_upper), "request high 64 bits for Command1" },
	{ "ctl_status", "Controller Status", U, DNET_UR_CTL_STATUS, R, 64, DNET_CS_VALID_MASK,
	  PW, FL(f_ctl_status), "controller state, completion and error flags" },
	{ "prim_counter", "Primitive Counter", U, DNET_UR_PRIM_COUNTER, R, 64, 0x0fffffffffffffffull,
	  PW, FL(f_prim_counter), "completed primitives per family (10-bit each)" },
	{ "prim_counter_reset", "Primitive Counter Reset", U, DNET_UR_PRIM_COUNTER, W, 64, ~0ull,
	  DNET_RF_ANY_VALUE | PW, FL(f_any), "any write clears the Primitive Counter" },
	{ "pw_flag", "Prefetch Window Flag", U, DNET_UR_PW_FLAG, R, 64, 0xffffull,
	  PW, FL(f_pw_flag), "one bit per 128-byte Prefetch Window line" },
	{ "pkt_counter", "Packet Counter", U, DNET_UR_PKT_COUNTER, R, 64, ~0ull,
	  PW, FL(f_pkt_counter), "received packets (64-bit)" },
	{ "pkt_counter_reset", "Packet Counter Reset", U, DNET_UR_PKT_COUNTER, W, 64, ~0ull,
	  DNET_RF_ANY_VALUE | PW, FL(f_any), "any write clears the Packet Counter" },
	{ "ivs_area_size", "IPUSH Area Size", U, DNET_UR_IPUSH_AREA, W, 64, 0xffffull,
	  PW, FL(f_ipush_area), "size of the SO-DIMM IPUSH receive area" },
	{ "evpbuf_nwa", "LH Buffer Next Write Address", U, DNET_UR_LHB_ADDR, R, 64, 0xfffull,
	  PW, FL(f_lhb_tail), "LH Buffer Tail (controller)" },
	{ "evpbuf_nra", "LH Buffer Next Read Address", U, DNET_UR_LHB_ADDR, W, 64, 0xfffull,
	  PW, FL(f_lhb_head), "LH Buffer Head (host)" },
	{ "module_state", "Module Status", U, DNET_UR_MODULE_STATE, R, 64, 0x03ffffffffffffffull,
	  0, FL(f_module_state), "state of every Core Logic state machine" },
	{ "status_initial_addr", "Status Initial Address", U, DNET_UR_STATUS_INIT, W, 64, 0x7fffull,
	  PW, FL(f_status_init), "receive status ring start in LLCM" },
	{ "status_area_size", "Status Area Size", U, DNET_UR_STATUS_SIZE, W, 64, 0x7full,
	  PW, FL(f_status_size), "receive status ring size (one-hot)" },
	{ "status_nwa", "Status Next Write Address", U, DNET_UR_STATUS_ADDR, R, 64, 0x7fffull,
	  PW, FL(f_status_tail), "status ring Tail (controller); Tab. C.3 calls it Head, OQ-28" },
	{ "status_nra", "Status Next Read Address", U, DNET_UR_STATUS_ADDR, W, 64, 0x7fffull,
	  PW, FL(f_status_head), "status ring Head (host); Tab. C.4 calls it Tail, OQ-28" },
	{ "cmd_ex_flag", "Command Ex Flag", U, DNET_UR_CMD_EX_FLAG, W, 64, 0x1ull,
	  PW, FL(f_cmd_ex_flag), "enable 192-bit requests" },

	{ "sdimm_init", "SO-DIMM Init", S, DNET_SR_SDIMM_INIT, W, 64, 0x1ull,
	  0, FL(f_sdimm_init), "make the SO-DIMMs usable (once per power-up)" },
	{ "sdimm_capacity", "SO-DIMM Capacity", S, DNET_SR_SDIMM_CAPACITY, W, 64, 0x3full,
	  0, FL(f_capacity), "capacity per module (one-hot)" },
	{ "mtu", "MTU", S, DNET_SR_MTU, W, 64, 0x1full,
	  0, FL(f_mtu), "network MTU (one-hot)" },
	{ "sma_lid", "Get LID from sma", S, DNET_SR_SMA, R, 64, 0x3ffffull,
	  0, FL(f_sma_lid), "LID from the Subnet Manager Agent and SWIF status" },
	{ "sma_reset", "SMA Software Reset", S, DNET_SR_SMA, W, 64, ~0ull,
	  DNET_RF_ANY_VALUE, FL(f_any), "any write resets the SMA" },
	{ "lid", "LID", S, DNET_SR_LID, W, 64, 0xffffull,
	  0, FL(f_lid), "tell the Core Logic its own LID" },
	{ "pgid0", "PGID0", S, DNET_SR_PGID0, W, 64, 0xffull,
	  0, FL(f_pgid), "PGID of the WID 0 process" },
	{ "pgid1", "PGID1", S, DNET_SR_PGID1, W, 64, 0xffull,
	  0, FL(f_pgid), "PGID of the WID 1 process" },
	{ "ctl_reset", "Controller Reset", S, DNET_SR_CTL_RESET, R | W, 64, ~0ull,
	  DNET_RF_ANY_VALUE | DNET_RF_READ_EFFECT, FL(f_any), "any access (read or write) resets the controller" },
	{ "amt", "AMT Address Table Interface", S, DNET_SR_AMT, W, 64, 0x3fffffffull,
	  0, FL(f_amt), "program one AMT Address Table entry (offset: decision D-AMT-OFFSET)" },
};

static const struct { const char *alias, *name; } aliases[] = {
	{ "controller_status", "ctl_status" },
	{ "clt_reset", "ctl_reset" },           /* the typo of Fig. C.11 */
	{ "lhb_nwa", "evpbuf_nwa" }, { "lhb_nra", "evpbuf_nra" },
	{ "lhb_tail", "evpbuf_nwa" }, { "lhb_head", "evpbuf_nra" },
	{ "status_tail", "status_nwa" }, { "status_head", "status_nra" },
	{ "ipush_area_size", "ivs_area_size" },
	{ "controller_reset", "ctl_reset" },
};

const struct dnet_reg *dnet_regs(unsigned *count)
{
	if (count)
		*count = N(regs);
	return regs;
}

const struct dnet_reg *dnet_reg_by_name(const char *name)
{
	for (unsigned i = 0; i < N(regs); i++)
		if (strcmp(regs[i].name, name) == 0)
			return &regs[i];
	for (unsigned i = 0; i < N(aliases); i++)
		if (strcmp(aliases[i].alias, name) == 0)
			return dnet_reg_by_name(aliases[i].name);
	return NULL;
}

const struct dnet_reg *dnet_reg_at(enum dnet_reg_block block, uint32_t offset, unsigned access)
{
	for (unsigned i = 0; i < N(regs); i++)
		if (regs[i].block == block && regs[i].offset == offset && (regs[i].access & access))
			return &regs[i];
	return NULL;
}

const struct dnet_field *dnet_field_by_name(const struct dnet_reg *reg, const char *name)
{
	for (unsigned i = 0; i < reg->nfields; i++)
		if (strcmp(reg->fields[i].name, name) == 0)
			return &reg->fields[i];
	return NULL;
}

int dnet_reg_parse(const char *spec, const struct dnet_reg **reg,
		   const struct dnet_field **field, struct dnet_err *err)
{
	char name[64];
	const char *dot = strchr(spec, '.');
	size_t n = dot ? (size_t)(dot - spec) : strlen(spec);
	if (n == 0 || n >= sizeof name)
		return dnet_seterr(err, DNET_EINVAL, "bad register name '%s'", spec);
	memcpy(name, spec, n);
	name[n] = '\0';
	const struct dnet_reg *r = dnet_reg_by_name(name);
	struct dnet_suggest sg;
	if (!r) {
		dnet_suggest_init(&sg, name);
		for (unsigned i = 0; i < sizeof regs / sizeof regs[0]; i++)
			dnet_suggest_add(&sg, regs[i].name);
		const char *best = dnet_suggest_best(&sg);
		if (best)
			return dnet_seterr(err, DNET_ENOENT, "unknown register '%s' (did you mean '%s'?)", name, best);
		return dnet_seterr(err, DNET_ENOENT, "unknown register '%s'", name);
	}
	const struct dnet_field *f = NULL;
	if (dot) {
		f = dnet_field_by_name(r, dot + 1);
		if (!f) {
			dnet_suggest_init(&sg, dot + 1);
			for (unsigned i = 0; i < r->nfields; i++)
				dnet_suggest_add(&sg, r->fields[i].name);
			const char *best = dnet_suggest_best(&sg);
			if (best)
				return dnet_seterr(err, DNET_ENOENT, "register '%s' has no field '%s' (did you mean '%s.%s'?)",
						   r->name, dot + 1, r->name, best);
			return dnet_seterr(err, DNET_ENOENT, "register '%s' has no field '%s'",
					   r->name, dot + 1);
		}
	}
	*reg = r;
	if (field)
		*field = f;
	else if (f)
		return dnet_seterr(err, DNET_EINVAL, "a register is needed here, not a field: '%s'", spec);
	return 0;
}

uint32_t dnet_reg_addr(const struct dnet_reg *reg, unsigned wid)
{
	if (reg->block == DNET_BLK_SYSTEM)
		return DNET_SREG_BASE + reg->offset;
	return DNET_UREG_WID(wid & 1u) + reg->offset;
}

int dnet_field_set(const struct dnet_field *f, uint64_t *reg, uint64_t value,
		   struct dnet_err *err)
{
	if (f->width < 64 && value >> f->width)
		return dnet_seterr(err, DNET_ERANGE,
				   "value 0x%" PRIx64 " does not fit field '%s' (%u bits, max 0x%" PRIx64 ")",
				   value, f->name, f->width, (uint64_t)((1ull << f->width) - 1));
	*reg = (*reg & ~dnet_field_mask(f)) | (value << f->lsb);
	return 0;
}

const char *dnet_field_meaning(const struct dnet_field *f, uint64_t value, char *buf, size_t len)
{
	if (f->states && value < f->nstates) {
		snprintf(buf, len, "%s", f->states[value]);
		return buf;
	}
	if (f->codes) {
		bool defined;
		uint64_t v = dnet_code_decode(f->codes, value, &defined);
		snprintf(buf, len, "%" PRIu64 " %s%s", v, f->codes->unit,
			 defined ? "" : " (undefined code: hardware default)");
		return buf;
	}
	return NULL;
}
