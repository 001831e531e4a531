/* The pci backend (backends/pci/pci.c, bars.c, probe.c) against a fake sysfs
 * tree and, as pciutils' own tests do, libpci's dump access method on
 * fixture dumps (tests/fixtures/pci): libpci finds the device by slot or by
 * id, the BAR is checked (memory BAR, not the upper half of a 64-bit one,
 * assigned, large enough, memory decoding on or turned on with ,enable), the
 * BAR file is mapped and the Write Window from resourceN_wc, accesses land
 * at the right offsets (checked with pread), and every failure has a clear
 * message. */
/* Decisions pinned here (docs/decisions.md): D-CACHE, D-PCI-EXT. */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dnet/dnet.h"
#include "harness.h"

static char root[64], devdir[160], bar0[200];

static void put(const char *dir, const char *name, const char *text)
{
	char p[256];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	if (!f) { perror(p); t_fail++; return; }
	fputs(text, f);
	fclose(f);
}

static void make_tree(void)
{
	char d[128];
	snprintf(d, sizeof d, "%s/devices", root);
	mkdir(d, 0700);
	snprintf(devdir, sizeof devdir, "%s/devices/0000:03:00.0", root);
	mkdir(devdir, 0700);
	put(devdir, "vendor", "0x1234\n");
	put(devdir, "device", "0x5678\n");
	put(devdir, "class", "0x058000\n");
	put(devdir, "irq", "0\n");
	/* BAR0 512 KB, BAR1 4 KB, rest empty. */
	put(devdir, "resource",
	    "0x00000000f0000000 0x00000000f007ffff 0x0000000000040200\n"
	    "0x00000000f0100000 0x00000000f0100fff 0x0000000000040200\n"
	    "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
	    "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
	    "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
	    "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
	    "0x0000000000000000 0x0000000000000000 0x0000000000000000\n");
	/* Command: memory decoding on; BAR0, BAR1 32-bit memory BARs. */
	char cfg[64] = { 0x34, 0x12, 0x78, 0x56, 0x02, 0x00, [0x13] = (char)0xf0, [0x16] = 0x10,
			 [0x17] = (char)0xf0 };
	char p[256];
	snprintf(p, sizeof p, "%s/config", devdir);
	FILE *f = fopen(p, "w");
	fwrite(cfg, 1, sizeof cfg, f);
	fclose(f);
	snprintf(bar0, sizeof bar0, "%s/resource0", devdir);
	int fd = open(bar0, O_CREAT | O_RDWR, 0600);
	if (fd < 0 || ftruncate(fd, 0x80000) != 0)
		t_fail++;
	close(fd);
	snprintf(p, sizeof p, "%s/resource1", devdir);
	fd = open(p, O_CREAT | O_RDWR, 0600);
	if (fd < 0 || ftruncate(fd, 0x1000) != 0)
		t_fail++;
	close(fd);
}

static uint64_t bar_u64(off_t off)
{
	uint64_t v = 0;
	int fd = open(bar0, O_RDONLY);
	if (fd < 0 || pread(fd, &v, 8, off) != 8)
		t_fail++;
	close(fd);
	return v;
}

static void by_slot_and_id(void)
{
	struct dnet_err e;
	struct dnet_dev *d = NULL;
	char spec[256];
	snprintf(spec, sizeof spec, "pci:03:00.0,sysfs=%s", root);
	CHECK_OK(dnet_open(spec, &d, &e), &e);
	if (d) {
		CHECK_STR(dnet_dev_backend(d), "pci");
		CHECK_OK(dnet_write64(d, 0x28100, 0x1230, &e), &e);
		CHECK_EQ(bar_u64(0x28100), 0x1230);
		uint64_t v128[2] = { 1, 2 }, r[2];
		CHECK_OK(dnet_write128(d, 0x20010, v128, &e), &e);
		CHECK_OK(dnet_read128(d, 0x20010, r, &e), &e);
		CHECK(r[0] == 1 && r[1] == 2);
		CHECK_EQ(bar_u64(0x20018), 2);
		dnet_close(d);
	}
	d = NULL;
	snprintf(spec, sizeof spec, "pci:id=1234:5678,sysfs=%s", root);
	CHECK_OK(dnet_open(spec, &d, &e), &e);
	if (d) {
		uint64_t v;
		CHECK_OK(dnet_read64(d, 0x28100, &v, &e), &e);
		CHECK_EQ(v, 0x1230);
		dnet_close(d);
	}
}

static void failures(void)
{
	struct dnet_err e;
	struct dnet_dev *d = NULL;
	char spec[256];
	snprintf(spec, sizeof spec, "pci:03:00.0,bar=1,sysfs=%s", root);
	CHECK_EQ(dnet_open(spec, &d, &e), -DNET_ERANGE);
	CHECK(strstr(e.msg, "BAR1") != NULL);
	snprintf(spec, sizeof spec, "pci:04:00.0,sysfs=%s", root);
	CHECK_EQ(dnet_open(spec, &d, &e), -DNET_ENOENT);
	CHECK(strstr(e.msg, "04:00.0") != NULL);
	snprintf(spec, sizeof spec, "pci:id=1234:5678,index=1,sysfs=%s", root);
	CHECK_EQ(dnet_open(spec, &d, &e), -DNET_ENOENT);
	snprintf(spec, sizeof spec, "pci:zz:00.q,sysfs=%s", root);
	CHECK_EQ(dnet_open(spec, &d, &e), -DNET_EINVAL);
	CHECK_EQ(dnet_open("pci:03:00.0,sysfs=/nonexistent", &d, &e), -DNET_EIO);
	CHECK(strstr(e.msg, "libpci") != NULL);
	CHECK_EQ(dnet_open("pci:", &d, &e), -DNET_EINVAL);
	snprintf(spec, sizeof spec, "pci:03:00.0,bar=9,sysfs=%s", root);
	CHECK_EQ(dnet_open(spec, &d, &e), -DNET_ERANGE);
	CHECK(d == NULL);
}

static uint16_t cfg_command(void)
{
	char p[256];
	uint16_t v = 0;
	snprintf(p, sizeof p, "%s/config", devdir);
	int fd = open(p, O_RDONLY);
	if (fd < 0 || pread(fd, &v, 2, 4) != 2)
		t_fail++;
	close(fd);
	return v;
}

static void decoding(void)
{
	struct dnet_err e;
	struct dnet_dev *d = NULL;
	char spec[256];
	char p[256];
	snprintf(p, sizeof p, "%s/config", devdir);
	int fd = open(p, O_WRONLY);
	if (fd < 0 || pwrite(fd, "\0\0", 2, 4) != 2) /* Command = 0 */
		t_fail++;
	close(fd);
	snprintf(spec, sizeof spec, "pci:03:00.0,sysfs=%s", root);
	CHECK_EQ(dnet_open(spec, &d, &e), -DNET_EPERM);
	CHECK(strstr(e.msg, "memory decoding off") != NULL && strstr(e.msg, ",enable") != NULL);
	CHECK_EQ(cfg_command(), 0);
	/* A dry run refuses the same, and with ,enable does not turn it on. */
	CHECK_EQ(dnet_open_dry(spec, &d, &e), -DNET_EPERM);
	snprintf(spec, sizeof spec, "pci:03:00.0,sysfs=%s,enable", root);
	CHECK_OK(dnet_open_dry(spec, &d, &e), &e);
	dnet_close(d);
	d = NULL;
	CHECK_EQ(cfg_command(), 0);
	CHECK_OK(dnet_open(spec, &d, &e), &e);
	CHECK_EQ(cfg_command(), 2); /* written through libpci */
	dnet_close(d);
}

static char fixtures[256];

static void dumps(void)
{
	struct dnet_err e;
	struct dnet_dev *d = NULL;
	char spec[512];
	/* The mapping comes from sysfs: BAR0 (512 KB) with a WC view, BAR2 4 KB. */
	char p[300];
	snprintf(p, sizeof p, "%s/resource0_wc", devdir);
	int fd = open(p, O_CREAT | O_RDWR, 0600);
	if (fd < 0 || ftruncate(fd, 0x80000) != 0)
		t_fail++;
	close(fd);
	snprintf(p, sizeof p, "%s/resource2", devdir);
	fd = open(p, O_CREAT | O_RDWR, 0600);
	if (fd < 0 || ftruncate(fd, 0x1000) != 0)
		t_fail++;
	close(fd);

	snprintf(spec, sizeof spec, "pci:03:00.0,dump=%s/board.dump,sysfs=%s", fixtures, root);
	CHECK_OK(dnet_open(spec, &d, &e), &e);
	if (d) {
		/* The Write Window goes through resource0_wc, the LLCM through resource0. */
		CHECK_OK(dnet_write64(d, DNET_WW_WID(1) + 0x40, 0x77, &e), &e);
		CHECK_OK(dnet_write64(d, 0x20040, 0x88, &e), &e);
		CHECK_EQ(bar_u64(DNET_WW_WID(1) + 0x40), 0);
		CHECK_EQ(bar_u64(0x20040), 0x88);
		uint64_t v = 0;
		snprintf(p, sizeof p, "%s/resource0_wc", devdir);
		fd = open(p, O_RDONLY);
		CHECK(fd >= 0 && pread(fd, &v, 8, DNET_WW_WID(1) + 0x40) == 8);
		close(fd);
		CHECK_EQ(v, 0x77);
		dnet_close(d);
		d = NULL;
	}
	/* nowc: everything through resource0. */
	snprintf(spec, sizeof spec, "pci:id=1234:5678,dump=%s/board.dump,sysfs=%s,nowc", fixtures, root);
	CHECK_OK(dnet_open(spec, &d, &e), &e);
	if (d) {
		CHECK_OK(dnet_write64(d, DNET_WW_WID(0) + 0x8, 0x99, &e), &e);
		CHECK_EQ(bar_u64(DNET_WW_WID(0) + 0x8), 0x99);
		dnet_close(d);
		d = NULL;
	}
	/* The upper half of a 64-bit BAR, an I/O BAR, an unassigned one, a
	 * BAR too small, a BAR past the header's last. */
	snprintf(spec, sizeof spec, "pci:03:00.0,bar=1,dump=%s/board.dump,sysfs=%s", fixtures, root);
	CHECK_EQ(dnet_open(spec, &d, &e), -DNET_EINVAL);
	CHECK(strstr(e.msg, "BAR1 is the upper half of the 64-bit BAR0") != NULL);
	snprintf(spec, sizeof spec, "pci:03:00.0,bar=3,dump=%s/board.dump,sysfs=%s", fixtures, root);
	CHECK_EQ(dnet_open(spec, &d, &e), -DNET_EINVAL);
	CHECK(strstr(e.msg, "BAR3 (0x0000e001) is an I/O BAR") != NULL);
	snprintf(spec, sizeof spec, "pci:03:00.0,bar=4,dump=%s/board.dump,sysfs=%s", fixtures, root);
	CHECK_EQ(dnet_open(spec, &d, &e), -DNET_EINVAL);
	CHECK(strstr(e.msg, "BAR4 is not assigned") != NULL);
	/* A bridge (header type 1) has two BARs. */
	snprintf(spec, sizeof spec, "pci:03:00.0,bar=2,dump=%s/bridge.dump,sysfs=%s", fixtures, root);
	CHECK_EQ(dnet_open(spec, &d, &e), -DNET_EINVAL);
	CHECK(strstr(e.msg, "header type 1 with 2 BARs; there is no BAR2") != NULL);
	/* BARs walked from BAR0 (as probe does): a 64-bit BAR0 above 16 GiB
	 * has the upper half 0x4, which BAR1 alone would read as a 64-bit
	 * BAR whose upper half is BAR2. */
	snprintf(spec, sizeof spec, "pci:03:00.0,bar=1,dump=%s/bar-walk.dump,sysfs=%s", fixtures, root);
	CHECK_EQ(dnet_open(spec, &d, &e), -DNET_EINVAL);
	CHECK(strstr(e.msg, "BAR1 is the upper half of the 64-bit BAR0") != NULL);
	snprintf(spec, sizeof spec, "pci:03:00.0,bar=2,dump=%s/bar-walk.dump,sysfs=%s", fixtures, root);
	CHECK_EQ(dnet_open(spec, &d, &e), -DNET_EINVAL);
	CHECK(strstr(e.msg, "BAR2 is not assigned") != NULL);
	snprintf(spec, sizeof spec, "pci:03:00.0,bar=2,dump=%s/board.dump,sysfs=%s", fixtures, root);
	CHECK_EQ(dnet_open(spec, &d, &e), -DNET_ERANGE);
	CHECK(strstr(e.msg, "BAR2 is 0x1000 bytes") != NULL);
	/* Memory decoding off in the dump: refused; ,enable cannot write a dump. */
	snprintf(spec, sizeof spec, "pci:03:00.0,dump=%s/decoding-off.dump,sysfs=%s", fixtures, root);
	CHECK_EQ(dnet_open(spec, &d, &e), -DNET_EPERM);
	CHECK(strstr(e.msg, "0000:03:00.0 has memory decoding off (Command 0x0000") != NULL);
	snprintf(spec, sizeof spec, "pci:03:00.0,dump=%s/decoding-off.dump,sysfs=%s,enable", fixtures, root);
	CHECK(dnet_open(spec, &d, &e) < 0);
	CHECK(strstr(e.msg, "libpci") != NULL || strstr(e.msg, "did not turn on") != NULL);
	/* A device the dump does not hold, a dump that does not exist. */
	snprintf(spec, sizeof spec, "pci:04:00.0,dump=%s/board.dump,sysfs=%s", fixtures, root);
	CHECK_EQ(dnet_open(spec, &d, &e), -DNET_ENOENT);
	CHECK(strstr(e.msg, "board.dump") != NULL);
	snprintf(spec, sizeof spec, "pci:03:00.0,dump=/nonexistent.dump,sysfs=%s", root);
	CHECK_EQ(dnet_open(spec, &d, &e), -DNET_EIO);
	CHECK(d == NULL);
}

/* The write-combining boundary, with no kernel (issue 31): the Write
 * Window [0, 0x10000) and nothing else comes from resource0_wc, the rest
 * [0x10000, 0x51000) from resource0 at the same offsets, side by side.
 * Read from /proc/self/maps (which file backs which addresses, at which
 * file offset), so a mapping one byte or one page too long or too short
 * is caught, and through the core: a Prefetch Window read at 0x10000 sees
 * resource0's word, a Write Window store resource0_wc's file. */
struct vma { unsigned long lo, hi, off; bool found; };

static void vma_of(const char *file, struct vma *v)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	memset(v, 0, sizeof *v);
	while (f && fgets(line, sizeof line, f)) {
		unsigned long lo, hi, off;
		char path[300] = "";
		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %299s", &lo, &hi, &off, path) == 4 &&
		    strcmp(path, file) == 0) {
			CHECK(!v->found); /* one mapping of each file */
			*v = (struct vma){ lo, hi, off, true };
		}
	}
	if (f)
		fclose(f);
}

static void wc_boundary(void)
{
	struct dnet_err e;
	struct dnet_dev *d = NULL;
	char spec[512], wc[300];
	snprintf(wc, sizeof wc, "%s/resource0_wc", devdir);
	int fd = open(wc, O_CREAT | O_RDWR, 0600);
	if (fd < 0 || ftruncate(fd, 0x80000) != 0)
		t_fail++;
	/* Distinct words at the first Prefetch Window line in each file. */
	uint64_t in_wc = 0x1111111111111111ull, in_bar = 0x2222222222222222ull;
	if (fd < 0 || pwrite(fd, &in_wc, 8, DNET_PW_BASE) != 8)
		t_fail++;
	close(fd);
	fd = open(bar0, O_RDWR);
	if (fd < 0 || pwrite(fd, &in_bar, 8, DNET_PW_BASE) != 8)
		t_fail++;
	close(fd);
	snprintf(spec, sizeof spec, "pci:03:00.0,dump=%s/board.dump,sysfs=%s", fixtures, root);
	CHECK_OK(dnet_open(spec, &d, &e), &e);
	if (!d)
		return;
	struct vma w, b;
	vma_of(wc, &w);
	vma_of(bar0, &b);
	CHECK(w.found && b.found);
	CHECK_EQ(w.hi - w.lo, DNET_PW_BASE);           /* the Write Window, exactly */
	CHECK_EQ(w.off, 0);
	CHECK_EQ(b.lo, w.hi);                          /* side by side */
	CHECK_EQ(b.hi - b.lo, DNET_MAP_SIZE - DNET_PW_BASE);
	CHECK_EQ(b.off, DNET_PW_BASE);                 /* the same offsets */
	uint64_t v = 0;
	CHECK_OK(dnet_read64(d, DNET_PW_BASE, &v, &e), &e);
	CHECK_EQ(v, in_bar);
	CHECK_OK(dnet_write64(d, DNET_WW_WID(1) + 0x7f8, 0x5a, &e), &e); /* the last word of WID 1's windows */
	dnet_close(d);
	fd = open(wc, O_RDONLY);
	CHECK(fd >= 0 && pread(fd, &v, 8, DNET_WW_WID(1) + 0x7f8) == 8);
	close(fd);
	CHECK_EQ(v, 0x5a);
	CHECK_EQ(bar_u64(DNET_WW_WID(1) + 0x7f8), 0);
	/* Two sessions on one BAR that disagree on its memory types (PAT:
	 * one per physical range, D-PCI-PAT): refused with the reason, either
	 * order; sessions that agree share it. */
	char nowc[600];
	snprintf(nowc, sizeof nowc, "%s,nowc", spec);
	struct dnet_dev *d2 = NULL;
	CHECK_OK(dnet_open(spec, &d, &e), &e);
	CHECK_OK(dnet_open(spec, &d2, &e), &e); /* both write-combining: fine */
	dnet_close(d2);
	d2 = NULL;
	CHECK_EQ(dnet_open(nowc, &d2, &e), -DNET_EBUSY);
	CHECK(strstr(e.msg, "another session maps BAR0's Write Window write-combining") &&
	      strstr(e.msg, "conflicting memory types"));
	dnet_close(d);
	dnet_close(d2);
	d = d2 = NULL;
	CHECK_OK(dnet_open(nowc, &d, &e), &e);
	CHECK_OK(dnet_open(nowc, &d2, &e), &e); /* both uncached: fine */
	dnet_close(d2);
	d2 = NULL;
	CHECK_EQ(dnet_open(spec, &d2, &e), -DNET_EBUSY);
	CHECK(strstr(e.msg, "another session maps BAR0 uncached (,nowc") && strstr(e.msg, "uncached-minus"));
	dnet_close(d);
	dnet_close(d2);
	d = d2 = NULL;
	CHECK_OK(dnet_open(spec, &d, &e), &e); /* the other gone: fine again */
	dnet_close(d);
	unlink(wc);
}

int main(int argc, char **argv)
{
	(void)argc;
	/* tests/fixtures/pci, found from the source tree (make runs from it). */
	snprintf(fixtures, sizeof fixtures, "%s", getenv("DNET_FIXTURES") ? getenv("DNET_FIXTURES")
										 : "tests/fixtures/pci");
	(void)argv;
	snprintf(root, sizeof root, "/tmp/dnet-sysfs-XXXXXX");
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return 1;
	}
	make_tree();
	RUN(by_slot_and_id);
	RUN(failures);
	RUN(decoding);
	RUN(dumps);
	RUN(wc_boundary);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	if (system(cmd) != 0)
		t_fail++;
	return t_summary("test_pci");
}
