/* Strict number parsing (parse.h).  The thesis's debug shell (App. C) used strtoul and read
 * "55ff" as 55; here a token is a whole number or an error. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "dnet/parse_int.h"

static int digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return 99;
}

/* Parse s[0..n) as a number; the suffix (if any) is handled by the caller. */
static int parse_digits(const char *tok, const char *s, size_t n, uint64_t *v,
			const char *what, struct dnet_err *err)
{
	const char *w = what ? what : "number";
	unsigned base = 10;
	if (n == 0)
		return dnet_seterr(err, DNET_EINVAL, "%s: empty value", w);
	if (s[0] == '-' || s[0] == '+')
		return dnet_seterr(err, DNET_EINVAL, "%s '%s': signs are not allowed", w, tok);
	if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		base = 16;
	else if (n >= 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B'))
		base = 2;
	else if (n >= 2 && s[0] == '0' && (s[1] == 'o' || s[1] == 'O'))
		base = 8;
	else if (n >= 2 && s[0] == '0')
		return dnet_seterr(err, DNET_EINVAL,
				   "%s '%s': leading zero is ambiguous (the thesis's debug shell read it as octal); "
				   "write 0o%.*s for octal or drop the zero", w, tok, (int)(n - 1), s + 1);
	size_t i = base == 10 ? 0 : 2;
	if (i == n)
		return dnet_seterr(err, DNET_EINVAL, "%s '%s': no digits after '%.2s'", w, tok, s);
	uint64_t acc = 0;
	bool any = false, last_sep = true;
	for (; i < n; i++) {
		if (s[i] == '_') {
			if (last_sep)
				return dnet_seterr(err, DNET_EINVAL, "%s '%s': misplaced '_'", w, tok);
			last_sep = true;
			continue;
		}
		int d = digit_value(s[i]);
		if (d >= (int)base)
			return dnet_seterr(err, DNET_EINVAL,
					   "%s '%s': invalid character '%c' for a base-%u number%s", w, tok,
					   s[i], base,
					   base == 10 && d < 16 ? " (hexadecimal needs the 0x prefix)" : "");
		if (acc > (UINT64_MAX - (uint64_t)d) / base)
			return dnet_seterr(err, DNET_ERANGE, "%s '%s': too large for 64 bits", w, tok);
		acc = acc * base + (uint64_t)d;
		any = true;
		last_sep = false;
	}
	if (!any || last_sep)
		return dnet_seterr(err, DNET_EINVAL, "%s '%s': misplaced '_'", w, tok);
	*v = acc;
	return 0;
}

int dnet_parse_u64(const char *s, uint64_t max, uint64_t *v, const char *what,
		   struct dnet_err *err)
{
	uint64_t x;
	if (!s)
		return dnet_seterr(err, DNET_EINVAL, "%s: missing value", what ? what : "number");
	int rc = parse_digits(s, s, strlen(s), &x, what, err);
	if (rc)
		return rc;
	if (x > max)
		return dnet_seterr(err, DNET_ERANGE, "%s '%s' out of range (max 0x%llx = %llu)",
				   what ? what : "number", s, (unsigned long long)max,
				   (unsigned long long)max);
	*v = x;
	return 0;
}

int core_parse_size(const char *s, uint64_t max, uint64_t *v, const char *what,
		    struct dnet_err *err)
{
	if (!s)
		return dnet_seterr(err, DNET_EINVAL, "%s: missing value", what ? what : "size");
	size_t n = strlen(s);
	unsigned shift = 0;
	bool hex = n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	if (n > 1 && !hex) {
		switch (s[n - 1]) {
		case 'K': case 'k': shift = 10; break;
		case 'M': case 'm': shift = 20; break;
		case 'G': case 'g': shift = 30; break;
		}
	}
	uint64_t x;
	int rc = parse_digits(s, s, shift ? n - 1 : n, &x, what, err);
	if (rc)
		return rc;
	if (shift && x > (UINT64_MAX >> shift))
		return dnet_seterr(err, DNET_ERANGE, "%s '%s': too large", what ? what : "size", s);
	x <<= shift;
	if (x > max)
		return dnet_seterr(err, DNET_ERANGE, "%s '%s' out of range (max %llu)",
				   what ? what : "size", s, (unsigned long long)max);
	*v = x;
	return 0;
}

/* The one duration parser (every program, the emulator's options, the
 * remote backend's timeout=): Decision D-DURATION.  A whole number and a
 * unit -- ns, us, ms, s, m (or min), h -- and no space between them.  A
 * bare number is refused, whatever it would have meant (issue 32: dsh read
 * "sleep 5" as 5 ns, dnetd "--idle-timeout 5" as 5 s); only a bare 0, the
 * same in every unit, is accepted. */
#define UNITS "ns, us, ms, s, m, h"
static int parse_dur(const char *s, uint64_t *ns, const char *what, struct dnet_err *err)
{
	/* longest first: "min" before "m", "ns" "us" "ms" before "s" */
	static const struct { const char *suffix; uint64_t mult; } units[] = {
		{ "min", 60000000000ull }, { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
		{ "s", 1000000000ull }, { "m", 60000000000ull }, { "h", 3600000000000ull },
	};
	const char *w = what ? what : "duration";
	if (!s || !*s)
		return dnet_seterr(err, DNET_EINVAL, "%s: missing value (a number and a unit: " UNITS ")", w);
	size_t n = strlen(s);
	uint64_t mult = 0;
	size_t digits = n;
	for (unsigned i = 0; i < sizeof units / sizeof units[0]; i++) {
		size_t l = strlen(units[i].suffix);
		if (n > l && strcmp(s + n - l, units[i].suffix) == 0) {
			mult = units[i].mult;
			digits = n - l;
			break;
		}
	}
	bool number = false; /* a digit before the unit: else "h", "ms", "abc" */
	for (size_t i = 0; i < digits && !number; i++)
		number = s[i] >= '0' && s[i] <= '9';
	if (!number)
		return dnet_seterr(err, DNET_EINVAL, "%s: '%s' is not a duration (a number and a unit: " UNITS ")",
				   w, s);
	uint64_t x;
	int rc = parse_digits(s, s, digits, &x, w, err);
	if (rc) {
		size_t u = n; /* "10d", "5sec", "5parsecs": the letters at the end */
		while (u > 0 && ((s[u - 1] >= 'a' && s[u - 1] <= 'z') || (s[u - 1] >= 'A' && s[u - 1] <= 'Z')))
			u--;
		if (u == n || u == digits || !(s[u - 1] >= '0' && s[u - 1] <= '9'))
			return rc; /* the number itself is wrong ("1.5s", "1_s"): parse_digits said how */
		return dnet_seterr(err, DNET_EINVAL, "%s: '%s': unknown unit '%s' (" UNITS ")", w, s, s + u);
	}
	if (!mult) {
		if (x)
			return dnet_seterr(err, DNET_EINVAL, "%s: '%s' needs a unit (" UNITS ")", w, s);
		mult = 1; /* a bare 0 */
	}
	if (x > UINT64_MAX / mult)
		return dnet_seterr(err, DNET_ERANGE, "%s: '%s' is too long (at most 2^64 ns)", w, s);
	*ns = x * mult;
	return 0;
}

int dnet_parse_duration(const char *s, uint64_t *ns, const char *what, struct dnet_err *err)
{
	return parse_dur(s, ns, what, err);
}

/* Whole seconds (dnetd's --hello-grace, --idle-timeout, --idle-evict keep
 * their limits in seconds): the grammar of dnet_parse_duration, the value a
 * whole number of seconds no larger than max. */
int dnet_parse_seconds(const char *s, uint64_t max, uint64_t *sec, const char *what, struct dnet_err *err)
{
	uint64_t ns;
	const char *w = what ? what : "duration";
	int rc = parse_dur(s, &ns, w, err);
	if (rc)
		return rc;
	if (ns % 1000000000ull)
		return dnet_seterr(err, DNET_EINVAL, "%s: '%s' is not a whole number of seconds", w, s);
	if (ns / 1000000000ull > max)
		return dnet_seterr(err, DNET_ERANGE, "%s: '%s' out of range (max %llus)", w, s,
				   (unsigned long long)max);
	*sec = ns / 1000000000ull;
	return 0;
}

const char *dnet_format_duration(uint64_t ns, char *buf, size_t n)
{
	static const struct { uint64_t div; const char *unit; } u[] = {
		{ 1000000000ull, "s" }, { 1000000ull, "ms" }, { 1000ull, "us" },
	};
	for (size_t i = 0; i < sizeof u / sizeof u[0]; i++)
		if (ns && ns % u[i].div == 0) {
			snprintf(buf, n, "%llu%s", (unsigned long long)(ns / u[i].div), u[i].unit);
			return buf;
		}
	snprintf(buf, n, "%lluns", (unsigned long long)ns);
	return buf;
}

const char *dnet_format_time(uint64_t ns, char *buf, size_t n)
{
	if (ns < 1000ull)
		snprintf(buf, n, "%lluns", (unsigned long long)ns);
	else if (ns < 1000000ull)
		snprintf(buf, n, "%.3fus", (double)ns / 1e3);
	else if (ns < 1000000000ull)
		snprintf(buf, n, "%.3fms", (double)ns / 1e6);
	else
		snprintf(buf, n, "%.3fs", (double)ns / 1e9);
	return buf;
}
