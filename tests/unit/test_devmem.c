/* The devmem backend (backends/devmem/devmem.c, iomem.c) end to end
 * against a temporary file standing in for /dev/mem: every access width
 * lands at the right file offset (checked with pread, independently of the
 * backend), request issue order, block copies, register access rules, and
 * the open-time safety checks: alignment, size, fake /proc/iomem lists
 * (System RAM, Reserved, ACPI NVS, straddling, empty, unreadable, zeroed),
 * /dev/mem known by fstat through a symlink, the presence check before the
 * first write, the System Register only with ,privileged. */
/* Decisions pinned here (docs/decisions.md): D-DEVMEM-RANGE. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "dnet/dnet.h"
#include "harness.h"

static char path[64], iomem[64];
#define BASE 0x3000u

static uint64_t file_u64(uint64_t off)
{
	int fd = open(path, O_RDONLY);
	uint64_t v = 0;
	if (fd < 0 || pread(fd, &v, 8, (off_t)off) != 8)
		t_fail++;
	close(fd);
	return v;
}

static void file_put(uint64_t off, const void *buf, size_t n)
{
	int fd = open(path, O_WRONLY);
	if (fd < 0 || pwrite(fd, buf, n, (off_t)off) != (ssize_t)n)
		t_fail++;
	close(fd);
}

static struct dnet_dev *open_ok(void)
{
	char spec[128];
	struct dnet_err e;
	struct dnet_dev *d = NULL;
	snprintf(spec, sizeof spec, "devmem:0x%x@%s,privileged", BASE, path);
	CHECK_OK(dnet_open(spec, &d, &e), &e);
	return d;
}

static void widths(void)
{
	struct dnet_dev *d = open_ok();
	struct dnet_err e;
	if (!d)
		return;
	CHECK_STR(dnet_dev_backend(d), "devmem");
	CHECK_EQ(dnet_node_count(d), 1);
	CHECK_OK(dnet_write8(d, 0x20001, 0xab, &e), &e);
	CHECK_OK(dnet_write16(d, 0x20002, 0xcdef, &e), &e);
	CHECK_OK(dnet_write32(d, 0x20004, 0x01234567, &e), &e);
	CHECK_EQ(file_u64(BASE + 0x20000), 0x01234567cdefab00ull);
	CHECK_OK(dnet_write64(d, 0x20008, 0x1122334455667788ull, &e), &e);
	CHECK_EQ(file_u64(BASE + 0x20008), 0x1122334455667788ull);
	uint64_t v128[2] = { 0xaaaa0001aaaa0000ull, 0xaaaa0003aaaa0002ull };
	CHECK_OK(dnet_write128(d, 0x20010, v128, &e), &e);
	CHECK_EQ(file_u64(BASE + 0x20010), v128[0]);
	CHECK_EQ(file_u64(BASE + 0x20018), v128[1]);
	/* Reads see what the file holds (LLCM: any width; registers: 64 bits). */
	uint64_t pat = 0x0fedcba987654321ull;
	file_put(BASE + 0x40200, &pat, 8);
	file_put(BASE + 0x28040, &pat, 8);
	uint64_t r64;
	uint32_t r32;
	uint16_t r16;
	uint8_t r8;
	uint64_t r128[2];
	CHECK_OK(dnet_read64(d, 0x40200, &r64, &e), &e); CHECK_EQ(r64, pat);
	CHECK_OK(dnet_read32(d, 0x28044, &r32, &e), &e); CHECK_EQ(r32, 0x0fedcba9);
	CHECK_OK(dnet_read16(d, 0x28042, &r16, &e), &e); CHECK_EQ(r16, 0x8765);
	CHECK_OK(dnet_read8(d, 0x28041, &r8, &e), &e); CHECK_EQ(r8, 0x43);
	CHECK_EQ(dnet_read32(d, 0x40204, &r32, &e), -DNET_EINVAL);
	CHECK(strstr(e.msg, "[reg-width]") != NULL);
	file_put(BASE + 0x40200, &(uint64_t){ 0 }, 8); /* an idle controller again */
	CHECK_OK(dnet_read128(d, 0x20010, r128, &e), &e);
	CHECK_EQ(r128[0], v128[0]); CHECK_EQ(r128[1], v128[1]);
	/* Alignment and bounds are checked before any access. */
	CHECK_EQ(dnet_write64(d, 0x20004, 1, &e), -DNET_EALIGN);
	CHECK_EQ(file_u64(BASE + 0x20000), 0x01234567cdefab00ull);
	CHECK_EQ(dnet_read128(d, 0x20008, r128, &e), -DNET_EALIGN);
	CHECK_EQ(dnet_read64(d, DNET_MAP_SIZE, &r64, &e), -DNET_ERANGE);
	CHECK_EQ(dnet_read(d, 0, &r64, 3, &e), -DNET_EINVAL);
	dnet_close(d);
}

static void blocks_and_issue(void)
{
	struct dnet_dev *d = open_ok();
	struct dnet_err e;
	if (!d)
		return;
	uint8_t buf[512], back[512];
	for (unsigned i = 0; i < sizeof buf; i++)
		buf[i] = (uint8_t)(i * 7 + 1);
	CHECK_OK(dnet_write_block(d, DNET_WW_WID(1) + 0x200, buf, sizeof buf, &e), &e);
	int fd = open(path, O_RDONLY);
	CHECK(pread(fd, back, sizeof back, BASE + DNET_WW_WID(1) + 0x200) == (ssize_t)sizeof back);
	close(fd);
	CHECK(memcmp(buf, back, sizeof buf) == 0);
	file_put(BASE + DNET_PW_WID(0), buf, sizeof buf);
	memset(back, 0, sizeof back);
	CHECK_OK(dnet_read_block(d, DNET_PW_WID(0), back, sizeof back, &e), &e);
	CHECK(memcmp(buf, back, sizeof buf) == 0);
	CHECK_EQ(dnet_read_block(d, DNET_PW_WID(0), back, 12, &e), -DNET_EALIGN);
	CHECK_OK(dnet_cache_flush(d, DNET_PW_WID(0), 512, &e), &e);
	CHECK_OK(dnet_prefetch(d, DNET_PW_WID(0), 512, &e), &e);
	CHECK_OK(dnet_wc_flush(d, &e), &e);

	/* Issue through Command1 of WID 1 (Controller Status reads 0 = idle). */
	struct dnet_req r = { .otype = DNET_OT_RVS, .dclid = 2, .eflag = 1, .size = 0x100,
			      .srcoff = 0x40, .dstoff = 0x80 };
	struct dnet_cmd c;
	CHECK_OK(dnet_req_encode(&r, &c, &e), &e);
	CHECK_OK(dnet_issue(d, 1, DNET_CMD1, &c, 1000000, &e), &e);
	CHECK_EQ(file_u64(BASE + 0x41110), 0x0000008000000040ull);
	CHECK_EQ(file_u64(BASE + 0x41100), 0x0000010040080014ull);
	CHECK_EQ(file_u64(BASE + 0x41010), 0); /* Command0 untouched */
	/* A busy FIFO: the issue waits, then fails without writing Lower. */
	uint64_t full = DNET_CS_FIFO_FULL;
	file_put(BASE + 0x40200, &full, 8);
	r.srcoff = 0x99;
	CHECK_OK(dnet_req_encode(&r, &c, &e), &e);
	CHECK_EQ(dnet_issue(d, 0, DNET_CMD0, &c, 2000000, &e), -DNET_EBUSY);
	CHECK_EQ(file_u64(BASE + 0x40000), 0);
	CHECK_EQ(file_u64(BASE + 0x40010), 0);
	uint64_t last = 0;
	CHECK_EQ(dnet_wait(d, 0x40200, ~0ull, DNET_COND_EQ, 0, 1000000, &last, &e), -DNET_ETIMEDOUT);
	CHECK_EQ(last, DNET_CS_FIFO_FULL);
	CHECK_OK(dnet_wait(d, 0x40200, DNET_CS_FIFO_FULL, DNET_COND_NE, 0, 1000000, &last, &e), &e);

	/* Register rules. */
	uint64_t v;
	CHECK_EQ(dnet_reg_read(d, 0, dnet_reg_by_name("status_nra"), &v, &e), -DNET_EPERM);
	CHECK_EQ(dnet_reg_read(d, 0, dnet_reg_by_name("ctl_reset"), &v, &e), -DNET_EPERM);
	CHECK_EQ(dnet_reg_write(d, 0, dnet_reg_by_name("ctl_status"), 0, &e), -DNET_EPERM);
	CHECK_EQ(dnet_reg_write(d, 0, dnet_reg_by_name("pgid0"), 0x100, &e), -DNET_ERANGE);
	CHECK_OK(dnet_reg_write(d, 0, dnet_reg_by_name("pgid1"), 0x42, &e), &e);
	CHECK_EQ(file_u64(BASE + 0x50900), 0x42);
	CHECK_OK(dnet_reg_write(d, 1, dnet_reg_by_name("status_initial_addr"), 0x100, &e), &e);
	CHECK_EQ(file_u64(BASE + 0x41900), 0x100);
	CHECK_OK(dnet_reg_read(d, 0, dnet_reg_by_name("ctl_status"), &v, &e), &e);
	CHECK_EQ(v, DNET_CS_FIFO_FULL);
	CHECK_EQ(dnet_sodimm_access(d, 0, buf, 8, false, &e), -DNET_ENOTSUP);

	/* Fields by name: Status Area Size code [6:0]; PGID1 [7:0]; AMT word
	 * fields addr [11:0], wid [13:12], lid [29:14] built from a base. */
	CHECK_OK(dnet_field_write(d, 1, "status_area_size.code", 0x20, NULL, &e), &e);
	CHECK_EQ(file_u64(BASE + 0x41a00), 0x20);
	uint64_t amt = 0x123;
	CHECK_OK(dnet_field_write(d, 0, "amt.lid", 0xbeef, &amt, &e), &e);
	CHECK_EQ(file_u64(BASE + 0x50b00), 0x123ull | 0xbeefull << 14);
	CHECK_EQ(dnet_field_write(d, 0, "pgid1.pgid", 0x100, NULL, &e), -DNET_ERANGE);
	CHECK_EQ(file_u64(BASE + 0x50900), 0x42);
	CHECK_EQ(dnet_field_write(d, 0, "pgid1.nosuch", 1, NULL, &e), -DNET_ENOENT);
	CHECK_EQ(dnet_field_write(d, 0, "ctl_status.status_empty", 1, NULL, &e), -DNET_EPERM);
	uint64_t cs = DNET_CS_STATUS_EMPTY | 2ull << 18;
	file_put(BASE + 0x40200, &cs, 8);
	CHECK_OK(dnet_field_read(d, 0, "ctl_status.status_empty", &v, &e), &e);
	CHECK_EQ(v, 1);
	CHECK_OK(dnet_field_read(d, 0, "ctl_status.rc_state", &v, &e), &e);
	CHECK_EQ(v, 2);
	CHECK_OK(dnet_field_read(d, 0, "ctl_status", &v, &e), &e);
	CHECK_EQ(v, cs);
	CHECK_EQ(dnet_field_read(d, 0, "status_nra.head", &v, &e), -DNET_EPERM);
	dnet_close(d);
}

static void open_checks(void)
{
	struct dnet_err e;
	struct dnet_dev *d = NULL;
	char spec[160];
	snprintf(spec, sizeof spec, "devmem:0x3001@%s", path);
	CHECK_EQ(dnet_open(spec, &d, &e), -DNET_EALIGN);
	CHECK(strstr(e.msg, "aligned") != NULL && d == NULL);
	snprintf(spec, sizeof spec, "devmem:0x100000@%s", path);
	CHECK_EQ(dnet_open(spec, &d, &e), -DNET_ERANGE);
	CHECK(strstr(e.msg, "bytes") != NULL);
	snprintf(spec, sizeof spec, "devmem:0x3000@/nonexistent/mem");
	CHECK_EQ(dnet_open(spec, &d, &e), -DNET_EIO);
	CHECK(strstr(e.msg, "/nonexistent/mem") != NULL);
	CHECK_EQ(dnet_open("devmem:", &d, &e), -DNET_EINVAL);
	CHECK_EQ(dnet_open("devmem:55ff", &d, &e), -DNET_EINVAL);
	snprintf(spec, sizeof spec, "devmem:0x3000@%s,bogus", path);
	CHECK_EQ(dnet_open(spec, &d, &e), -DNET_EINVAL);
	CHECK(strstr(e.msg, "bogus") != NULL);
	CHECK_EQ(dnet_open("nosuch:1", &d, &e), -DNET_ENOENT);
	/* Options that are gone or unknown are named. */
	snprintf(spec, sizeof spec, "devmem:0x3000@%s,force", path);
	CHECK_EQ(dnet_open(spec, &d, &e), -DNET_EINVAL);
	CHECK(strstr(e.msg, "force") != NULL && strstr(e.msg, "memmap=") != NULL);
	/* Not /dev/mem and not a regular file: refused by what it is. */
	CHECK_EQ(dnet_open("devmem:0x0@/dev/null", &d, &e), -DNET_EINVAL);
	CHECK(strstr(e.msg, "1:3") != NULL && strstr(e.msg, "not /dev/mem (1:1)") != NULL);
	CHECK_EQ(dnet_open("devmem:0x0@/tmp", &d, &e), -DNET_EINVAL);
	CHECK(d == NULL);
}

static void put_iomem(const char *text)
{
	FILE *f = fopen(iomem, "w");
	if (!f) {
		t_fail++;
		return;
	}
	fputs(text, f);
	fclose(f);
}

/* Open the stand-in with the fake list; returns the open's result and
 * closes what opened. */
static int open_with_list(uint64_t base, const char *extra, struct dnet_err *e)
{
	char spec[256];
	struct dnet_dev *d = NULL;
	snprintf(spec, sizeof spec, "devmem:0x%" PRIx64 "@%s,iomem=%s%s", base, path, iomem, extra);
	int rc = dnet_open(spec, &d, e);
	dnet_close(d);
	return rc;
}

/* The window (0x51000 bytes) against fake /proc/iomem lists. */
static void iomem_rules(void)
{
	struct dnet_err e;
	/* System RAM under the window: refused, and there is no override. */
	put_iomem("00000000-00000fff : Reserved\n00001000-00007fff : System RAM\n"
		  "  00002000-00002fff : Kernel code\n00100000-001fffff : PCI Bus 0000:00\n");
	CHECK_EQ(open_with_list(0x3000, "", &e), -DNET_EPERM);
	CHECK(strstr(e.msg, "System RAM 1000-7fff") != NULL && strstr(e.msg, "no override") != NULL);
	CHECK_EQ(open_with_list(0x3000, ",known-machine", &e), -DNET_EPERM);
	/* Wholly inside a Reserved entry (memmap=): accepted, at any depth. */
	put_iomem("00000000-00000fff : Reserved\n00001000-00002fff : System RAM\n"
		  "00003000-00053fff : Reserved\n00100000-001fffff : System RAM\n");
	CHECK_OK(open_with_list(0x3000, "", &e), &e);
	put_iomem("00000000-00000fff : Reserved\n00001000-000fffff : PCI Bus 0000:00\n"
		  "  00002000-000fffff : reserved\n");
	CHECK_OK(open_with_list(0x3000, "", &e), &e);
	/* Outside every entry (mem= cut it away): accepted. */
	put_iomem("00000000-00000fff : Reserved\n00100000-001fffff : System RAM\n");
	CHECK_OK(open_with_list(0x3000, "", &e), &e);
	/* ACPI NVS, a device, a PCI window: not Reserved -> refused, named. */
	put_iomem("00000000-000fffff : ACPI Non-volatile Storage\n");
	CHECK_EQ(open_with_list(0x3000, "", &e), -DNET_EPERM);
	CHECK(strstr(e.msg, "'ACPI Non-volatile Storage'") != NULL && strstr(e.msg, "not in a Reserved") != NULL);
	put_iomem("00000000-000fffff : PCI Bus 0000:00\n  00002000-00080fff : 0000:00:02.0\n");
	CHECK_EQ(open_with_list(0x3000, "", &e), -DNET_EPERM);
	CHECK(strstr(e.msg, "'0000:00:02.0'") != NULL);
	/* Straddling: partly Reserved, partly nothing -> refused. */
	put_iomem("00000000-00003fff : Reserved\n");
	CHECK_EQ(open_with_list(0x3000, "", &e), -DNET_EPERM);
	CHECK(strstr(e.msg, "not wholly inside 'Reserved'") != NULL);
	/* Each rule pinned by a case that a weaker rule would let through.
	 * The window starts in a hole and runs into System RAM: every entry
	 * the window overlaps counts, not only those holding the base. */
	put_iomem("00000000-00000fff : Reserved\n00010000-001fffff : System RAM\n");
	CHECK_EQ(open_with_list(0x3000, "", &e), -DNET_EPERM);
	CHECK(strstr(e.msg, "overlaps System RAM 10000-1fffff") != NULL);
	CHECK_EQ(open_with_list(0x3000, ",known-machine", &e), -DNET_EPERM);
	/* ... or into a Reserved entry: partly in a hole, not wholly inside. */
	put_iomem("00000000-00000fff : Reserved\n00010000-000fffff : Reserved\n");
	CHECK_EQ(open_with_list(0x3000, "", &e), -DNET_EPERM);
	CHECK(strstr(e.msg, "not wholly inside 'Reserved' 10000-fffff") != NULL);
	/* System RAM nested under a Reserved entry is still RAM. */
	put_iomem("00000000-000fffff : Reserved\n  00040000-0004ffff : System RAM\n");
	CHECK_EQ(open_with_list(0x3000, "", &e), -DNET_EPERM);
	CHECK(strstr(e.msg, "overlaps System RAM 40000-4ffff") != NULL);
	/* The innermost entry decides: a device inside a Reserved range. */
	put_iomem("00000000-000fffff : Reserved\n  00002000-00080fff : 0000:00:02.0\n");
	CHECK_EQ(open_with_list(0x3000, "", &e), -DNET_EPERM);
	CHECK(strstr(e.msg, "'0000:00:02.0'") != NULL && strstr(e.msg, "not in a Reserved") != NULL);
	/* A window past a Reserved entry's end, into the next entry. */
	put_iomem("00000000-00003fff : Reserved\n00004000-000fffff : Reserved\n");
	CHECK_EQ(open_with_list(0x3000, "", &e), -DNET_EPERM);
	CHECK(strstr(e.msg, "not wholly inside 'Reserved' 0-3fff") != NULL);
	/* ... every entry it crosses named, in the list's order, with its
	 * line; System RAM met after a straddled entry still refuses as RAM. */
	CHECK(strstr(e.msg, "not wholly inside 'Reserved' 0-3fff (") != NULL &&
	      strstr(e.msg, ":1), nor 'Reserved' 4000-fffff (") != NULL && strstr(e.msg, ":2)") != NULL);
	put_iomem("00000000-00003fff : Reserved\n00004000-00007fff : ACPI Tables\n"
		  "00008000-0004ffff : Reserved\n00050000-000fffff : PCI Bus 0000:00\n");
	CHECK_EQ(open_with_list(0x3000, "", &e), -DNET_EPERM);
	CHECK(strstr(e.msg, "'Reserved' 0-3fff") && strstr(e.msg, "nor 'ACPI Tables' 4000-7fff") &&
	      strstr(e.msg, "nor 'Reserved' 8000-4ffff") && strstr(e.msg, "nor 'PCI Bus 0000:00' 50000-fffff (") &&
	      strstr(e.msg, ":4)"));
	put_iomem("00000000-00003fff : Reserved\n00004000-000fffff : System RAM\n");
	CHECK_EQ(open_with_list(0x3000, "", &e), -DNET_EPERM);
	CHECK(strstr(e.msg, "overlaps System RAM 4000-fffff") != NULL);
	/* An empty list, one that shows no addresses (no root), one that
	 * cannot be read: refused unless ,known-machine. */
	put_iomem("");
	CHECK_EQ(open_with_list(0x3000, "", &e), -DNET_EPERM);
	CHECK(strstr(e.msg, "is empty") != NULL && strstr(e.msg, "known-machine") != NULL);
	CHECK_OK(open_with_list(0x3000, ",known-machine", &e), &e);
	put_iomem("00000000-00000000 : Reserved\n00000000-00000000 : System RAM\n");
	CHECK_EQ(open_with_list(0x3000, "", &e), -DNET_EPERM);
	CHECK(strstr(e.msg, "root") != NULL);
	CHECK_OK(open_with_list(0x3000, ",known-machine", &e), &e);
	char spec[256];
	struct dnet_dev *d = NULL;
	snprintf(spec, sizeof spec, "devmem:0x3000@%s,iomem=/nonexistent/iomem", path);
	CHECK_EQ(dnet_open(spec, &d, &e), -DNET_EPERM);
	CHECK(strstr(e.msg, "cannot be read") != NULL);
	put_iomem("garbage\n");
	CHECK_EQ(open_with_list(0x3000, "", &e), -DNET_EPROTO);
	CHECK(strstr(e.msg, ":1:") != NULL);
}

/* /dev/mem is known by what it is (character device 1:1), not by its name:
 * a node of our own reached through a symlink is checked against the list
 * like /dev/mem (and refused before it is ever opened). */
static void devmem_by_fstat(void)
{
	char node[96], link[96];
	snprintf(node, sizeof node, "%s.mem", path);
	snprintf(link, sizeof link, "%s.link", path);
	if (mknod(node, S_IFCHR | 0600, makedev(1, 1)) != 0) {
		SKIP("mknod of a /dev/mem twin: %s; checks by device number not run", strerror(errno));
		return;
	}
	if (symlink(node, link) != 0)
		t_fail++;
	struct dnet_err e;
	struct dnet_dev *d = NULL;
	char spec[256];
	/* iomem= is for stand-ins only: a list calling everything Reserved
	 * does not open /dev/mem (here: low RAM). */
	put_iomem("00000000-ffffffff : Reserved\n");
	snprintf(spec, sizeof spec, "devmem:0x0@%s,iomem=%s", link, iomem);
	CHECK_EQ(dnet_open(spec, &d, &e), -DNET_EINVAL);
	CHECK(strstr(e.msg, "for a stand-in file only") != NULL && strstr(e.msg, "/proc/iomem") != NULL);
	/* The same for a path with ./ and .. in it. */
	char odd[128];
	snprintf(odd, sizeof odd, "devmem:0x0@/tmp/./../tmp/%s,iomem=%s", strrchr(link, '/') + 1, iomem);
	CHECK_EQ(dnet_open(odd, &d, &e), -DNET_EINVAL);
	CHECK(strstr(e.msg, "for a stand-in file only") != NULL);
	/* The real /proc/iomem is consulted: low RAM (or, without root, a list
	 * showing no addresses) refuses. */
	snprintf(spec, sizeof spec, "devmem:0x0@%s", link);
	CHECK_EQ(dnet_open(spec, &d, &e), -DNET_EPERM);
	CHECK(d == NULL);
	unlink(link);
	unlink(node);
}

/* Before the first write the backend checks that a DIMMnet-2 answers:
 * reserved bits of Controller Status / Prefetch Window Flag read 0. */
static void presence(void)
{
	struct dnet_err e;
	uint8_t ones[0x1000];
	memset(ones, 0xff, sizeof ones);
	file_put(BASE + 0x40000, ones, sizeof ones);
	struct dnet_dev *d = open_ok();
	if (!d)
		return;
	uint64_t v;
	CHECK_OK(dnet_read64(d, 0x40200, &v, &e), &e); /* reads are not checked */
	CHECK_EQ(dnet_write64(d, 0x20000, 0x55, &e), -DNET_EIO);
	CHECK(strstr(e.msg, "no DIMMnet-2 answers") != NULL && strstr(e.msg, "Controller Status") != NULL &&
	      strstr(e.msg, "all ones") != NULL);
	CHECK_EQ(file_u64(BASE + 0x20000), 0x01234567cdefab00ull); /* nothing written */
	/* Controller Status plausible, Prefetch Window Flag not. */
	uint64_t cs = DNET_CS_SDIMM_INIT | DNET_CS_STATUS_EMPTY, pwf = 0x1ffff;
	file_put(BASE + 0x40200, &cs, 8);
	file_put(BASE + 0x40400, &pwf, 8);
	CHECK_EQ(dnet_write64(d, 0x20000, 0x55, &e), -DNET_EIO);
	CHECK(strstr(e.msg, "Prefetch Window Flag") != NULL && strstr(e.msg, "63:16") != NULL);
	pwf = 0xffff;
	file_put(BASE + 0x40400, &pwf, 8);
	CHECK_OK(dnet_write64(d, 0x20000, 0x55, &e), &e);
	CHECK_EQ(file_u64(BASE + 0x20000), 0x55);
	dnet_close(d);
	memset(ones, 0, sizeof ones);
	file_put(BASE + 0x40000, ones, sizeof ones);
}

/* The System Register only with ,privileged. */
static void privileged(void)
{
	struct dnet_err e;
	struct dnet_dev *d = NULL;
	char spec[128];
	snprintf(spec, sizeof spec, "devmem:0x%x@%s", BASE, path);
	CHECK_OK(dnet_open(spec, &d, &e), &e);
	if (!d)
		return;
	CHECK_EQ(dnet_dev_caps(d) & DNET_CAP_PRIVILEGED, 0);
	CHECK_EQ(dnet_reg_write(d, 0, dnet_reg_by_name("pgid1"), 0x17, &e), -DNET_EPERM);
	CHECK(strstr(e.msg, "[privileged]") != NULL && strstr(e.msg, ",privileged") != NULL);
	CHECK_EQ(file_u64(BASE + 0x50900), 0x42);
	uint64_t v;
	CHECK_EQ(dnet_read64(d, 0x50300, &v, &e), -DNET_EPERM);
	CHECK_OK(dnet_write64(d, 0x40900, 0x40, &e), &e); /* the User Register is fine */
	CHECK_EQ(file_u64(BASE + 0x40900), 0x40);
	dnet_close(d);
}

int main(void)
{
	snprintf(path, sizeof path, "/tmp/dnet-devmem-XXXXXX");
	int fd = mkstemp(path);
	snprintf(iomem, sizeof iomem, "/tmp/dnet-iomem-XXXXXX");
	int fd2 = mkstemp(iomem);
	if (fd < 0 || fd2 < 0 || ftruncate(fd, BASE + DNET_MAP_SIZE) != 0) {
		perror("temp file");
		return 1;
	}
	close(fd);
	close(fd2);
	RUN(widths);
	RUN(blocks_and_issue);
	RUN(open_checks);
	RUN(iomem_rules);
	RUN(devmem_by_fstat);
	RUN(presence);
	RUN(privileged);
	unlink(path);
	unlink(iomem);
	return t_summary("test_devmem");
}
