/* dnetd's grant files (see grants.h). */
#include "remote/dnetd/grants.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dnet/map.h"
#include "dnet/parse.h"

#define GRANTS_FILE_MAX (1u << 20) /* a grant file larger than 1 MiB is refused */

void srv_grants_free(struct dnet_grants *g)
{
	if (!g)
		return;
	for (unsigned i = 0; i < g->n; i++) {
		if (g->g[i].token) {
			/* a token is a secret: do not leave it in freed memory */
			memset(g->g[i].token, 0, strlen(g->g[i].token));
			free(g->g[i].token);
		}
	}
	free(g->g);
	g->g = NULL;
	g->n = 0;
}

const char *srv_grants_wids(unsigned wids, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = 0;
	for (unsigned w = 0; w < DNET_NWID; w++)
		if (wids & (1u << w))
			n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%u", n ? "," : "", w);
	return buf;
}

static bool blank(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r';
}

/* The next blank-separated word of the line at *p (NUL-terminated in place). */
static char *word(char **p)
{
	char *s = *p;
	while (blank(*s))
		s++;
	if (!*s)
		return NULL;
	char *e = s;
	while (*e && !blank(*e))
		e++;
	if (*e)
		*e++ = 0;
	*p = e;
	return s;
}

static int parse_line(char *line, const char *where, bool tokens, struct dnet_grant *g, struct dnet_err *err)
{
	char *p = line;
	char *subj = word(&p);
	memset(g, 0, sizeof *g);
	snprintf(g->where, sizeof g->where, "%s", where);
	if (tokens) {
		if (strlen(subj) > DNET_PROTO_TOKEN_MAX)
			return dnet_seterr(err, DNET_EINVAL, "%s: token longer than %u bytes", where,
					   DNET_PROTO_TOKEN_MAX);
		if (strchr(subj, '='))
			return dnet_seterr(err, DNET_EINVAL, "%s: the line must start with the token, then "
					   "node=N wid=W[,W] (found '%.40s' first)", where, subj);
		g->kind = DNET_GRANT_TOKEN;
		g->token = strdup(subj);
		if (!g->token)
			return dnet_seterr(err, DNET_ENOMEM, "out of memory");
	} else {
		char *colon = strchr(subj, ':');
		if (!colon || colon[1] == 0)
			return dnet_seterr(err, DNET_EINVAL, "%s: '%.60s': expected user:NAME, uid:N or group:NAME",
					   where, subj);
		*colon = 0;
		const char *name = colon + 1;
		if (strcmp(subj, "user") == 0) {
			struct passwd *pw = getpwnam(name);
			if (!pw)
				return dnet_seterr(err, DNET_EINVAL, "%s: no user '%.60s'", where, name);
			g->kind = DNET_GRANT_UID;
			g->id = (uint32_t)pw->pw_uid;
		} else if (strcmp(subj, "uid") == 0) {
			uint64_t v;
			if (dnet_parse_u64(name, 0xfffffffeu, &v, "uid", err))
				return dnet_seterr(err, DNET_EINVAL, "%s: uid:%.60s: %s", where, name, err->msg);
			g->kind = DNET_GRANT_UID;
			g->id = (uint32_t)v;
		} else if (strcmp(subj, "group") == 0) {
			struct group *gr = getgrnam(name);
			if (!gr)
				return dnet_seterr(err, DNET_EINVAL, "%s: no group '%.60s'", where, name);
			g->kind = DNET_GRANT_GROUP;
			g->id = (uint32_t)gr->gr_gid;
		} else {
			return dnet_seterr(err, DNET_EINVAL, "%s: '%.20s:': expected user:, uid: or group:", where, subj);
		}
	}
	bool have_node = false, have_wid = false;
	char *kv;
	while ((kv = word(&p)) != NULL) {
		char *eq = strchr(kv, '=');
		if (!eq)
			return dnet_seterr(err, DNET_EINVAL, "%s: '%.40s': expected node=N or wid=W[,W]", where, kv);
		*eq = 0;
		char *val = eq + 1;
		if (strcmp(kv, "node") == 0) {
			uint64_t v = 0;
			if (have_node)
				return dnet_seterr(err, DNET_EINVAL, "%s: node= given twice (a line grants one node; "
						   "write a line per node)", where);
			if (strchr(val, ','))
				return dnet_seterr(err, DNET_EINVAL, "%s: node=%.40s: one node per line", where, val);
			if (dnet_parse_u64(val, 0xffffffu, &v, "node", err))
				return dnet_seterr(err, DNET_EINVAL, "%s: node=%.40s: %s", where, val, err->msg);
			if (v < 1)
				return dnet_seterr(err, DNET_EINVAL, "%s: node=0: nodes are numbered from 1", where);
			g->node = (unsigned)v;
			have_node = true;
		} else if (strcmp(kv, "wid") == 0) {
			if (have_wid)
				return dnet_seterr(err, DNET_EINVAL, "%s: wid= given twice (write wid=0,1)", where);
			char *q = val;
			for (;;) {
				char *comma = strchr(q, ',');
				if (comma)
					*comma = 0;
				uint64_t v;
				if (dnet_parse_u64(q, DNET_NWID - 1, &v, "WID", err))
					return dnet_seterr(err, DNET_EINVAL, "%s: wid=%.20s: %s (WIDs are 0 and 1)", where, q,
							   err->msg);
				if (g->wids & (1u << v))
					return dnet_seterr(err, DNET_EINVAL, "%s: WID %u listed twice", where, (unsigned)v);
				g->wids |= 1u << v;
				if (!comma)
					break;
				q = comma + 1;
			}
			have_wid = true;
		} else {
			return dnet_seterr(err, DNET_EINVAL, "%s: unknown key '%.40s' (node=N wid=W[,W])", where, kv);
		}
	}
	if (!have_node || !have_wid)
		return dnet_seterr(err, DNET_EINVAL, "%s: missing %s (a line is %s node=N wid=W[,W])", where,
				   !have_node ? "node=N" : "wid=W[,W]", tokens ? "TOKEN" : "user:NAME|uid:N|group:NAME");
	return 0;
}

int srv_grants_parse(const char *text, const char *file, bool tokens, struct dnet_grants *out,
		      struct dnet_err *err)
{
	memset(out, 0, sizeof *out);
	snprintf(out->file, sizeof out->file, "%s", file);
	char *copy = strdup(text);
	if (!copy)
		return dnet_seterr(err, DNET_ENOMEM, "out of memory");
	int rc = 0;
	unsigned cap = 0, lineno = 0;
	char *save = copy;
	while (rc == 0 && save) {
		char *line = save;
		char *nl = strchr(line, '\n');
		save = nl ? nl + 1 : NULL;
		if (nl)
			*nl = 0;
		lineno++;
		if (!nl && !*line)
			break;
		char *s = line;
		while (blank(*s))
			s++;
		if (!*s || *s == '#')
			continue;
		char where[96];
		snprintf(where, sizeof where, "%.80s:%u", file, lineno);
		for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
			if (*c < 0x20 && *c != '\t' && *c != '\r') {
				rc = dnet_seterr(err, DNET_EINVAL, "%s: control character 0x%02x", where, *c);
				break;
			}
		}
		if (rc)
			break;
		if (out->n == cap) {
			unsigned ncap = cap ? cap * 2 : 8;
			struct dnet_grant *ng = realloc(out->g, ncap * sizeof *ng);
			if (!ng) {
				rc = dnet_seterr(err, DNET_ENOMEM, "out of memory");
				break;
			}
			out->g = ng;
			cap = ncap;
		}
		struct dnet_grant *g = &out->g[out->n];
		rc = parse_line(s, where, tokens, g, err);
		if (rc) {
			free(g->token);
			break;
		}
		out->n++;
		/* a token names one client: the same token twice is a mistake */
		for (unsigned i = 0; tokens && i + 1 < out->n; i++) {
			if (strcmp(out->g[i].token, g->token) == 0) {
				rc = dnet_seterr(err, DNET_EINVAL, "%s: the same token as %s", where, out->g[i].where);
				break;
			}
		}
	}
	memset(copy, 0, strlen(text));
	free(copy);
	if (rc)
		srv_grants_free(out);
	return rc;
}

int srv_grants_load(const char *path, bool tokens, struct dnet_grants *out, struct dnet_err *err)
{
	const char *what = tokens ? "user-token file" : "allow-list";
	memset(out, 0, sizeof *out);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return dnet_seterr(err, errno == EACCES ? DNET_EPERM : DNET_EIO, "cannot read %s %s: %s", what, path,
				   strerror(errno));
	struct stat st;
	int rc = 0;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		rc = dnet_seterr(err, DNET_EINVAL, "%s %s is not a regular file", what, path);
	else if (tokens && (st.st_mode & 0007))
		rc = dnet_seterr(err, DNET_EPERM, "%s %s is %s by others (mode %04o): it holds secrets; "
				 "chmod o-rwx %s", what, path, (st.st_mode & 0002) ? "writable" : "readable",
				 (unsigned)(st.st_mode & 07777), path);
	else if (!tokens && (st.st_mode & 0002))
		rc = dnet_seterr(err, DNET_EPERM, "%s %s is writable by others (mode %04o): anyone could grant "
				 "themselves a node; chmod o-w %s", what, path, (unsigned)(st.st_mode & 07777), path);
	else if (st.st_size > (off_t)GRANTS_FILE_MAX)
		rc = dnet_seterr(err, DNET_EINVAL, "%s %s is larger than %u bytes", what, path, GRANTS_FILE_MAX);
	char *text = NULL;
	if (rc == 0) {
		size_t len = 0, cap = (size_t)st.st_size + 2;
		text = malloc(cap);
		if (!text)
			rc = dnet_seterr(err, DNET_ENOMEM, "out of memory");
		while (rc == 0) {
			if (len > (size_t)st.st_size) {
				rc = dnet_seterr(err, DNET_EINVAL, "%s %s grew while being read", what, path);
				break;
			}
			ssize_t r = read(fd, text + len, cap - 1 - len);
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0)
				rc = dnet_seterr(err, DNET_EIO, "reading %s %s: %s", what, path, strerror(errno));
			if (r <= 0)
				break;
			len += (size_t)r;
		}
		if (rc == 0) {
			text[len] = 0;
			if (memchr(text, 0, len))
				rc = dnet_seterr(err, DNET_EINVAL, "%s %s holds a NUL byte", what, path);
		}
	}
	close(fd);
	if (rc == 0)
		rc = srv_grants_parse(text, path, tokens, out, err);
	if (rc == 0 && out->n == 0)
		rc = dnet_seterr(err, DNET_EINVAL, "%s %s grants nothing (no line)", what, path);
	if (text) {
		memset(text, 0, (size_t)st.st_size + 2);
		free(text);
	}
	if (rc)
		srv_grants_free(out);
	return rc;
}
