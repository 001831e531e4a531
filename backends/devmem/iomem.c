/* Parse /proc/iomem ("start-end : name", nested by indentation) and tell
 * whether a physical range overlaps memory the kernel uses as RAM. */
#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devmem/iomem.h"

int dnet_iomem_check(const char *path, uint64_t base, uint64_t size, char *what,
		     size_t whatlen, struct dnet_err *err)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return dnet_seterr(err, DNET_EIO, "devmem: cannot read %s: %s", path, strerror(errno));
	char line[512];
	unsigned lineno = 0;
	bool any_nonzero = false, any = false;
	int found = 0;
	while (fgets(line, sizeof line, f)) {
		lineno++;
		char *p = line + strspn(line, " \t");
		char *dash = strchr(p, '-');
		char *colon = strstr(p, " : ");
		if (!dash || !colon || dash > colon) {
			fclose(f);
			return dnet_seterr(err, DNET_EPROTO, "devmem: %s:%u: cannot parse '%.60s'",
					   path, lineno, p);
		}
		*dash = '\0';
		*colon = '\0';
		char *e1, *e2;
		errno = 0;
		uint64_t start = strtoull(p, &e1, 16);
		uint64_t end = strtoull(dash + 1, &e2, 16);
		if (errno || *e1 || (*e2 && *e2 != ' ') || end < start) {
			fclose(f);
			return dnet_seterr(err, DNET_EPROTO, "devmem: %s:%u: bad range", path, lineno);
		}
		char *name = colon + 3;
		name[strcspn(name, "\n")] = '\0';
		any = true;
		if (end)
			any_nonzero = true;
		if (strcmp(name, "System RAM") == 0 && start < base + size && base <= end && !found) {
			snprintf(what, whatlen, "%s %" PRIx64 "-%" PRIx64, name, start, end);
			found = 1;
		}
	}
	fclose(f);
	if (any && !any_nonzero)
		return dnet_seterr(err, DNET_EPERM,
				   "devmem: %s shows no addresses (reading it needs root); cannot check the range",
				   path);
	return found;
}
