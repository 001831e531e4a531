/* dsh: probe -- what the machine says about where a DIMMnet-2 can be, with
 * libpci (dnet/probe.h): the host bridge / memory controller with
 * names from the PCI ID database, for chipsets with public DRAM decode
 * registers the range each DIMM row decodes (the board in a DIMM slot is
 * one of them: a devmem base to try once reserved), and devices exposing a
 * memory BAR large enough for the map, with the pci backend spec to use.
 *
 *   probe [sysfs=PATH] [dump=FILE] [id=VVVV:DDDD[,...]]
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"
#include "dnet/probe.h"

static const char *role_name(enum dnet_probe_role r)
{
	switch (r) {
	case DNET_PROBE_HOST: return "host bridge";
	case DNET_PROBE_MEMCTL: return "memory controller";
	case DNET_PROBE_CANDIDATE: return "BAR candidate";
	}
	return "?";
}

static void mb(uint64_t bytes, char *buf, size_t n)
{
	if (bytes >= (1ull << 30) && bytes % (1ull << 30) == 0)
		snprintf(buf, n, "%" PRIu64 " GB", bytes >> 30);
	else
		snprintf(buf, n, "%" PRIu64 " MB", bytes >> 20);
}

int cmd_probe(struct dsh *d, struct dsh_args *a)
{
	const char *sysfs = NULL, *dump = NULL, *ids = NULL;
	for (int i = 1; i < a->argc; i++) {
		const char *s = a->argv[i];
		if (strncmp(s, "sysfs=", 6) == 0 && s[6])
			sysfs = s + 6;
		else if (strncmp(s, "dump=", 5) == 0 && s[5])
			dump = s + 5;
		else if (strncmp(s, "id=", 3) == 0 && s[3])
			ids = s + 3;
		else
			return dsh_error(d, "argument %d: '%s' is not sysfs=PATH, dump=FILE or id=VVVV:DDDD[,...]", i, s);
	}
	if (!ids)
		ids = getenv("DNET_PCI_IDS");
	if (ids && !*ids)
		ids = NULL;
	struct dnet_probe_dev *v = NULL;
	unsigned n = 0;
	struct dnet_err e = { 0 };
	if (dnet_pci_probe(sysfs, dump, ids, &v, &n, &e) < 0)
		return dsh_derr(d, &e);
	out_arr_open(d, "devices");
	unsigned cands = 0, hosts = 0;
	for (unsigned i = 0; i < n; i++) {
		struct dnet_probe_dev *p = &v[i];
		out_obj_open(d, NULL);
		out_str(d, "role", "%-17s", role_name(p->role));
		out_str(d, "slot", " %s", p->slot);
		out_hex(d, "vendor", " %04" PRIx64, p->vendor);
		out_hex(d, "device", ":%04" PRIx64, p->device);
		out_hex(d, "class", NULL, p->cls);
		out_str(d, "vendor_name", NULL, p->vname);
		out_str(d, "device_name", NULL, p->dname);
		out_text(d, " %s%s%s\n", p->vname[0] ? p->vname : "(vendor not in pci.ids)", p->dname[0] ? " " : "",
			 p->dname);
		if (p->role != DNET_PROBE_CANDIDATE)
			hosts++;
		if (p->nrows) {
			out_text(d, "  DRAM decode (%s):\n", p->decode_src);
			out_arr_open(d, "rows");
			for (unsigned r = 0; r < p->nrows; r++) {
				char sz[32];
				uint64_t len = p->row_end[r] - p->row_start[r];
				mb(len, sz, sizeof sz);
				if (len)
					out_text(d, "    row %u (DIMM socket %u, side %u): 0x%09" PRIx64 "-0x%09" PRIx64
						 " (%s): devmem:0x%" PRIx64 " once reserved\n", r, r / 2, r % 2,
						 p->row_start[r], p->row_end[r] - 1, sz, p->row_start[r]);
				else
					out_text(d, "    row %u (DIMM socket %u, side %u): empty\n", r, r / 2, r % 2);
				out_obj_open(d, NULL);
				out_u64(d, "row", NULL, r);
				out_hex(d, "start", NULL, p->row_start[r]);
				out_hex(d, "size", NULL, len);
				out_close(d);
			}
			out_close(d);
		} else if (p->role != DNET_PROBE_CANDIDATE) {
			out_text(d, "  no public DRAM decode registers known for this chipset: find the slot's range "
				 "with the board's manual or dmesg's BIOS-e820 map\n");
		}
		if (p->spec[0]) {
			cands++;
			char sz[40] = "size unknown (dump)";
			if (p->bar_size)
				snprintf(sz, sizeof sz, "0x%" PRIx64 " bytes", p->bar_size);
			out_text(d, "  memory BAR%u at 0x%" PRIx64 ", %s%s: -b %s\n", p->bar, p->bar_addr, sz,
				 p->decoding ? "" : ", memory decoding off", p->spec);
			out_u64(d, "bar", NULL, p->bar);
			out_hex(d, "bar_addr", NULL, p->bar_addr);
			out_hex(d, "bar_size", NULL, p->bar_size);
			out_str(d, "spec", NULL, p->spec);
		}
		out_close(d);
	}
	out_close(d);
	if (!hosts)
		out_text(d, "no host bridge or memory controller found\n");
	if (!cands)
		out_text(d, "no device exposes the DIMMnet-2 map through a PCI BAR%s; a board in a DIMM slot is "
			 "reached with devmem (dsh(1), RUNNING ON A BOARD)\n", ids ? " among the ids given" : "");
	out_u64(d, "candidates", NULL, cands);
	free(v);
	return 0;
}
