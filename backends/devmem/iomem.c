/* The /proc/iomem check of the devmem backend (iomem.h): a range is mapped
 * only where the kernel has no RAM and no other owner -- wholly inside a
 * "Reserved" entry, or outside every entry. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "devmem/iomem.h"

#define HINT "see devmem in libdnet(3): boot with memmap=SIZE$BASE or mem="

struct entry {
	uint64_t start, end;
	unsigned depth;
	char name[96];
};

static int unknown_list(const char *path, const char *why, bool known_machine, char *note,
			size_t notelen, struct dnet_err *err)
{
	if (known_machine) {
		if (note)
			snprintf(note, notelen, "%s %s; mapped on ',known-machine'", path, why);
		return 0;
	}
	return dnet_seterr(err, DNET_EPERM,
			   "devmem: %s %s, so the range cannot be checked against System RAM; "
			   "run as root, or add ,known-machine if you know the range is free", path, why);
}

int devmem_iomem_check(const char *path, uint64_t base, uint64_t size, bool known_machine,
		     char *note, size_t notelen, struct dnet_err *err)
{
	uint64_t last = base + size - 1;
	if (note && notelen)
		note[0] = '\0';
	FILE *f = fopen(path, "r");
	if (!f) {
		char why[160];
		snprintf(why, sizeof why, "cannot be read (%s)", strerror(errno));
		return unknown_list(path, why, known_machine, note, notelen, err);
	}
	char line[512];
	unsigned lineno = 0, n = 0;
	bool any_nonzero = false;
	char straddled[700] = ""; /* the entries the window runs into or out of */
	unsigned nstraddled = 0;
	struct entry inner = { 0 }; /* the deepest entry overlapping the range */
	bool have_inner = false;
	int rc = 0;
	while (fgets(line, sizeof line, f)) {
		lineno++;
		if (line[strspn(line, " \t\n")] == '\0')
			continue;
		unsigned depth = (unsigned)strspn(line, " ");
		char *p = line + strspn(line, " \t");
		char *dash = strchr(p, '-');
		char *colon = strstr(p, " : ");
		if (!dash || !colon || dash > colon) {
			rc = dnet_seterr(err, DNET_EPROTO, "devmem: %s:%u: cannot parse '%.60s'", path,
					 lineno, p);
			break;
		}
		*dash = '\0';
		*colon = '\0';
		char *e1, *e2;
		errno = 0;
		uint64_t start = strtoull(p, &e1, 16);
		uint64_t end = strtoull(dash + 1, &e2, 16);
		if (errno || e1 == p || *e1 || e2 == dash + 1 || (*e2 && *e2 != ' ') || end < start) {
			rc = dnet_seterr(err, DNET_EPROTO, "devmem: %s:%u: bad range", path, lineno);
			break;
		}
		char *name = colon + 3;
		name[strcspn(name, "\n")] = '\0';
		n++;
		if (end)
			any_nonzero = true;
		if (!(start <= last && base <= end))
			continue;
		/* The entry overlaps the window. */
		if (strcmp(name, "System RAM") == 0) {
			rc = dnet_seterr(err, DNET_EPERM,
					 "devmem: 0x%" PRIx64 "-0x%" PRIx64 " overlaps System RAM %" PRIx64
					 "-%" PRIx64 " in %s (%s:%u); the kernel owns those pages and there is "
					 "no override -- %s", base, last, start, end, path, path, lineno, HINT);
			break;
		}
		if (start > base || end < last) {
			/* Straddled: every such entry is named, not only the first
			 * met (System RAM further on still wins, above). */
			size_t l = strlen(straddled);
			if (nstraddled < 8)
				snprintf(straddled + l, sizeof straddled - l, "%s'%s' %" PRIx64 "-%" PRIx64 " (%s:%u)",
					 nstraddled ? ", nor " : "", name, start, end, path, lineno);
			nstraddled++;
			continue;
		}
		if (!have_inner || depth > inner.depth) {
			inner.start = start;
			inner.end = end;
			inner.depth = depth;
			snprintf(inner.name, sizeof inner.name, "%s", name);
			have_inner = true;
		}
	}
	fclose(f);
	if (rc)
		return rc;
	if (nstraddled)
		return dnet_seterr(err, DNET_EPERM,
				   "devmem: 0x%" PRIx64 "-0x%" PRIx64 " is not wholly inside %s%s; the window "
				   "must lie inside one Reserved entry or outside every entry", base, last,
				   straddled, nstraddled > 8 ? " and more" : "");
	if (n == 0)
		return unknown_list(path, "is empty", known_machine, note, notelen, err);
	if (!any_nonzero)
		return unknown_list(path, "shows only zero addresses (reading them needs root)",
				    known_machine, note, notelen, err);
	if (!have_inner) {
		if (note)
			snprintf(note, notelen, "outside every entry of %s", path);
		return 0;
	}
	if (strcasecmp(inner.name, "Reserved") != 0)
		return dnet_seterr(err, DNET_EPERM,
				   "devmem: 0x%" PRIx64 "-0x%" PRIx64 " lies in '%s' %" PRIx64 "-%" PRIx64
				   " of %s, not in a Reserved entry; refusing to map it -- %s",
				   base, last, inner.name, inner.start, inner.end, path, HINT);
	if (note)
		snprintf(note, notelen, "inside Reserved %" PRIx64 "-%" PRIx64 " of %s", inner.start,
			 inner.end, path);
	return 0;
}
