/* "-" and the file standard output is, as one stream (outfile.h). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "outfile.h"

bool out_is_stdout(const char *path)
{
	if (!path)
		return false;
	if (strcmp(path, "-") == 0)
		return true;
	struct stat a, b;
	if (stat(path, &a) != 0 || fstat(STDOUT_FILENO, &b) != 0)
		return false;
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino && !S_ISCHR(a.st_mode);
}

FILE *out_stdout_take(void)
{
	static FILE *taken;
	if (taken)
		return taken;
	fflush(stdout);
	int fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		return NULL;
	FILE *f = fdopen(fd, "w");
	if (!f) {
		int e = errno;
		close(fd);
		errno = e;
		return NULL;
	}
	if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
		int e = errno;
		fclose(f);
		errno = e;
		return NULL;
	}
	taken = f;
	return f;
}
