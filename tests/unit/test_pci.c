/* The pci backend against a fake sysfs tree: libpci finds the device by slot
 * or by id, the BAR file is mapped, accesses land at the right offsets
 * (checked with pread), and every failure has a clear message. */
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
	char cfg[64] = { 0x34, 0x12, 0x78, 0x56 };
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

int main(void)
{
	snprintf(root, sizeof root, "/tmp/dnet-sysfs-XXXXXX");
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return 1;
	}
	make_tree();
	RUN(by_slot_and_id);
	RUN(failures);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	if (system(cmd) != 0)
		t_fail++;
	return t_summary("test_pci");
}
