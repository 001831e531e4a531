/* The programs' one reading of UTF-8 (dsh's JSON Lines writer, dsh-run's
 * reports): header-only, compiled into each. */
#ifndef UTF8_H
#define UTF8_H

/* The length of the UTF-8 character at p (1 for ASCII, up to 4), 0 if p
 * does not start a valid one (no overlongs, no surrogates).  p is
 * NUL-terminated, so a character cut by the end is invalid. */
static inline int utf8_len(const unsigned char *p)
{
	unsigned char c = p[0];
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return (p[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		unsigned char lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
		return p[1] >= lo && p[1] <= hi && (p[2] & 0xc0) == 0x80 ? 3 : 0;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		unsigned char lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
		return p[1] >= lo && p[1] <= hi && (p[2] & 0xc0) == 0x80 && (p[3] & 0xc0) == 0x80 ? 4 : 0;
	}
	return 0;
}

#endif
