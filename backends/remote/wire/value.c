/* The value a READ reply or a WRITE carries (proto.h): an access of
 * width 1, 2, 4, 8 or 16 bytes in val[0] (low 64 bits) and val[1] (high).
 * Packed here and nowhere else, for the client (remote.c) and the server
 * (srv_dispatch.c) alike. */
#include <string.h>
#include "remote/wire/proto.h"

int wire_val_pack(uint64_t val[2], const void *buf, unsigned width, struct dnet_err *err)
{
	switch (width) {
	case 1: { uint8_t v; memcpy(&v, buf, 1); val[0] = v; val[1] = 0; return 0; }
	case 2: { uint16_t v; memcpy(&v, buf, 2); val[0] = v; val[1] = 0; return 0; }
	case 4: { uint32_t v; memcpy(&v, buf, 4); val[0] = v; val[1] = 0; return 0; }
	case 8: memcpy(&val[0], buf, 8); val[1] = 0; return 0;
	case 16: memcpy(val, buf, 16); return 0;
	default: return dnet_seterr(err, DNET_EINVAL, "bad access width %u", width);
	}
}

int wire_val_unpack(void *buf, const uint64_t val[2], unsigned width, struct dnet_err *err)
{
	switch (width) {
	case 1: { uint8_t v = (uint8_t)val[0]; memcpy(buf, &v, 1); return 0; }
	case 2: { uint16_t v = (uint16_t)val[0]; memcpy(buf, &v, 2); return 0; }
	case 4: { uint32_t v = (uint32_t)val[0]; memcpy(buf, &v, 4); return 0; }
	case 8: memcpy(buf, &val[0], 8); return 0;
	case 16: memcpy(buf, val, 16); return 0;
	default: return dnet_seterr(err, DNET_EINVAL, "bad access width %u", width);
	}
}
