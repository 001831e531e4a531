/* The options of a backend spec (spec.h). */
#include <string.h>

#include "dnet/spec.h"

bool dnet_spec_is(const char *spec, const char *backend)
{
	size_t l = strlen(backend);
	return spec && strncmp(spec, backend, l) == 0 && (spec[l] == '\0' || spec[l] == ':');
}

/* The option key in spec: its start and length (up to ',' or the end), or NULL. */
static const char *find(const char *spec, const char *key, size_t *len)
{
	const char *p = spec ? strchr(spec, ':') : NULL;
	size_t kl = strlen(key);
	while (p && *p) {
		p++; /* past ':' or ',' */
		size_t ol = strcspn(p, ",");
		if (ol >= kl && strncmp(p, key, kl) == 0 && (ol == kl || p[kl] == '=')) {
			*len = ol;
			return p;
		}
		p += ol;
	}
	return NULL;
}

int dnet_spec_get(const char *spec, const char *key, char *buf, size_t n, struct dnet_err *err)
{
	size_t ol, kl = strlen(key);
	if (buf && n)
		buf[0] = '\0';
	const char *o = find(spec, key, &ol);
	if (!o)
		return dnet_seterr(err, DNET_ENOENT, "the backend spec gives no option '%s'", key);
	if (ol == kl)
		return 0;
	size_t vl = ol - kl - 1;
	if (!buf)
		return 1;
	if (vl >= n)
		return dnet_seterr(err, DNET_EINVAL, "option '%s': its value of %zu bytes does not fit in %zu",
				   key, vl, n);
	memcpy(buf, o + kl + 1, vl);
	buf[vl] = '\0';
	return 1;
}

/* buf = a b c (lengths given), or "" and -DNET_EINVAL if it does not fit. */
static int join(char *buf, size_t n, const char *a, size_t al, const char *b, size_t bl, const char *c,
		struct dnet_err *err)
{
	size_t cl = strlen(c);
	if (!n || al + bl + cl >= n) {
		if (n)
			buf[0] = '\0';
		return dnet_seterr(err, DNET_EINVAL, "the backend spec would be %zu bytes, more than %zu",
				   al + bl + cl, n ? n - 1 : 0);
	}
	memmove(buf, a, al); /* a may be buf itself */
	memcpy(buf + al, b, bl);
	memcpy(buf + al + bl, c, cl + 1);
	return 0;
}

int dnet_spec_set(const char *spec, const char *key, const char *value, char *buf, size_t n,
		  struct dnet_err *err)
{
	if (!*key || strpbrk(key, "=,:"))
		return dnet_seterr(err, DNET_EINVAL, "'%s' is not an option name of a backend spec", key);
	if (value && strchr(value, ','))
		return dnet_seterr(err, DNET_EINVAL, "option '%s': a value with ',' ends the option", key);
	char opt[512];
	size_t kl = strlen(key), vl = value ? strlen(value) : 0;
	if (kl + 1 + vl >= sizeof opt)
		return dnet_seterr(err, DNET_EINVAL, "option '%s': value too long", key);
	memcpy(opt, key, kl);
	if (value) {
		opt[kl] = '=';
		memcpy(opt + kl + 1, value, vl + 1);
	} else {
		opt[kl] = '\0';
	}
	size_t ol;
	const char *o = find(spec, key, &ol);
	if (o) {
		/* the tail first: join may write over spec when it is buf */
		char tail[1024];
		size_t tl = strlen(o + ol);
		if (tl >= sizeof tail)
			return dnet_seterr(err, DNET_EINVAL, "backend spec too long");
		memcpy(tail, o + ol, tl + 1);
		return join(buf, n, spec, (size_t)(o - spec), opt, strlen(opt), tail, err);
	}
	return dnet_spec_add(spec, opt, buf, n, err);
}

int dnet_spec_add(const char *spec, const char *options, char *buf, size_t n, struct dnet_err *err)
{
	if (!options || !*options)
		return join(buf, n, spec, strlen(spec), "", 0, "", err);
	const char *sep = strchr(spec, ':') ? (spec[strlen(spec) - 1] == ':' ? "" : ",") : ":";
	char opts[1024];
	size_t ol = strlen(options);
	if (ol >= sizeof opts)
		return dnet_seterr(err, DNET_EINVAL, "backend spec options too long");
	memcpy(opts, options, ol + 1); /* options may be in buf too */
	return join(buf, n, spec, strlen(spec), sep, strlen(sep), opts, err);
}
