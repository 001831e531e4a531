/* SPDX-License-Identifier: MIT */
/* libdnet: little-endian loads and stores of 16/32/64-bit values and of
 * the first n bytes of a 64-bit value (the device's and the wire's byte
 * order), on <endian.h>: correct on any host, one move on x86. */
#ifndef DNET_BYTES_H
#define DNET_BYTES_H

#include <endian.h>
#include <stdint.h>
#include <string.h>

static inline uint16_t dnet_get16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return le16toh(v); }
static inline uint32_t dnet_get32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return le32toh(v); }
static inline uint64_t dnet_get64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return le64toh(v); }
static inline void dnet_put16(uint8_t *p, uint16_t v) { v = htole16(v); memcpy(p, &v, 2); }
static inline void dnet_put32(uint8_t *p, uint32_t v) { v = htole32(v); memcpy(p, &v, 4); }
static inline void dnet_put64(uint8_t *p, uint64_t v) { v = htole64(v); memcpy(p, &v, 8); }

/* The low n (<= 8) bytes of a little-endian value. */
static inline uint64_t dnet_get_le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;
	memcpy(&v, p, n);
	return le64toh(v);
}
static inline void dnet_put_le(uint8_t *p, uint64_t v, unsigned n)
{
	v = htole64(v);
	memcpy(p, &v, n);
}

#endif
