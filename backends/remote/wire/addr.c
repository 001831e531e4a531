/* Socket address strings shared by the remote backend and dnetd. */
#include "remote/wire/proto.h"
#include "dnet/parse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int parse_port(const char *p, char out[8], const char *whole, struct dnet_err *err)
{
	uint64_t v;
	struct dnet_err pe;
	if (dnet_parse_u64(p, 65535, &v, "TCP port", &pe))
		return dnet_seterr(err, DNET_EINVAL, "%s in \"%s\"", pe.msg, whole);
	snprintf(out, 8, "%u", (unsigned)v);
	return 0;
}

int rmt_sockspec_parse(const char *s, struct dnet_sockspec *a, struct dnet_err *err)
{
	memset(a, 0, sizeof *a);
	if (!s || !*s)
		return dnet_seterr(err, DNET_EINVAL, "empty socket address (unix:PATH or tcp:HOST:PORT)");
	if (strncmp(s, "unix:", 5) == 0) {
		const char *p = s + 5;
		size_t n = strlen(p);
		if (n == 0)
			return dnet_seterr(err, DNET_EINVAL, "unix: needs a socket path");
		if (n >= sizeof a->path)
			return dnet_seterr(err, DNET_EINVAL, "socket path of %zu bytes is too long (max %zu)",
					   n, sizeof a->path - 1);
		memcpy(a->path, p, n + 1);
		return 0;
	}
	if (strncmp(s, "tcp:", 4) == 0) {
		const char *p = s + 4;
		a->tcp = true;
		const char *colon;
		if (*p == '[') {
			const char *rb = strchr(p, ']');
			if (!rb || rb[1] != ':')
				return dnet_seterr(err, DNET_EINVAL, "bad address \"%s\" (tcp:[v6addr]:PORT)", s);
			size_t hl = (size_t)(rb - p - 1);
			/* no '[' inside: "tcp:[[]:8" would print back as "tcp:[:8" */
			if (hl == 0 || hl >= sizeof a->host || memchr(p + 1, '[', hl))
				return dnet_seterr(err, DNET_EINVAL, "bad host in \"%s\"", s);
			memcpy(a->host, p + 1, hl);
			a->host[hl] = 0;
			return parse_port(rb + 2, a->port, s, err);
		}
		colon = strrchr(p, ':');
		if (!colon) {
			snprintf(a->host, sizeof a->host, "127.0.0.1");
			return parse_port(p, a->port, s, err);
		}
		size_t hl = (size_t)(colon - p);
		if (memchr(p, ':', hl))
			return dnet_seterr(err, DNET_EINVAL,
					   "bad address \"%s\" (write IPv6 hosts in brackets: tcp:[::1]:PORT)", s);
		if (hl >= sizeof a->host)
			return dnet_seterr(err, DNET_EINVAL, "host name too long in \"%s\"", s);
		if (hl == 0)
			snprintf(a->host, sizeof a->host, "127.0.0.1");
		else {
			memcpy(a->host, p, hl);
			a->host[hl] = 0;
		}
		return parse_port(colon + 1, a->port, s, err);
	}
	return dnet_seterr(err, DNET_EINVAL, "bad socket address \"%s\" (unix:PATH or tcp:HOST:PORT)", s);
}

void rmt_sockspec_format(const struct dnet_sockspec *a, char *buf, size_t len)
{
	if (!a->tcp)
		snprintf(buf, len, "unix:%s", a->path);
	else if (strchr(a->host, ':'))
		snprintf(buf, len, "tcp:[%s]:%s", a->host, a->port);
	else
		snprintf(buf, len, "tcp:%s:%s", a->host, a->port);
}

/* Decision D-DNETD-SOCKET (docs/decisions.md): the one default socket of
 * dnetd and of -b remote; the rule is in proto.h. */
int rmt_sockspec_default(char *buf, size_t len, const char **from, struct dnet_err *err)
{
	const char *env = getenv("DNETD_SOCKET");
	const char *src;
	if (env && *env) {
		bool addr = strncmp(env, "unix:", 5) == 0 || strncmp(env, "tcp:", 4) == 0;
		if ((size_t)snprintf(buf, len, "%s%s", addr ? "" : "unix:", env) >= len)
			return dnet_seterr(err, DNET_EINVAL, "DNETD_SOCKET=%.40s...: too long for a socket address",
					   env);
		struct dnet_sockspec a;
		struct dnet_err pe;
		if (rmt_sockspec_parse(buf, &a, &pe))
			return dnet_seterr(err, DNET_EINVAL, "DNETD_SOCKET=%s: %s", env, pe.msg);
		src = "DNETD_SOCKET";
	} else {
		const char *run = getenv("XDG_RUNTIME_DIR");
		struct stat st;
		if (run && run[0] == '/' && strlen(run) + sizeof "/dnetd.sock" <= 108 &&
		    stat(run, &st) == 0 && S_ISDIR(st.st_mode)) {
			snprintf(buf, len, "unix:%s/dnetd.sock", run);
			src = "XDG_RUNTIME_DIR";
		} else if (getuid() == 0) {
			snprintf(buf, len, "unix:%s", DNET_SOCKET_SYSTEM);
			src = "root";
		} else {
			snprintf(buf, len, "unix:/tmp/dnetd-%u.sock", (unsigned)getuid());
			src = "uid";
		}
	}
	if (from)
		*from = src;
	return 0;
}
