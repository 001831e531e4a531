/* Fuzz target: the dnetd wire protocol decoder (backends/remote/wire/proto.c),
 * the code a hostile peer reaches first.  The input is a byte stream as
 * the server receives it: frames are cut with wire_peek and decoded;
 * a frame that decodes must encode again to a frame that decodes to the
 * same type, id and data (else abort: a finding). */
#include <stdlib.h>
#include <string.h>
#include "remote/wire/proto.h"
#include "fuzz.h"

const char fuzz_name[] = "fuzz_proto";
const unsigned long fuzz_default_iters = 30000;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t pos = 0;
	while (pos < size) {
		struct dnet_err e = { 0 };
		size_t flen = 0;
		int rc = wire_peek(data + pos, size - pos, &flen, &e);
		if (rc != 1)
			break; /* more bytes needed, or a header that drops the stream */
		if (flen > size - pos)
			abort(); /* peek promised bytes that are not there */
		struct dnet_proto_msg m;
		memset(&m, 0, sizeof m);
		if (wire_decode(data + pos, flen, &m, &e) == 0) {
			/* A decoded STAT_NAMES reply holds the encoded list (data);
			 * encoding takes names[]: read them out with next_name. */
			static char names[DNET_PROTO_NAMES_MAX][DNET_PROTO_NAME_MAX + 1];
			static const char *namep[DNET_PROTO_NAMES_MAX];
			if (m.type == (DNET_MSG_STAT_NAMES | DNET_MSG_REPLY)) {
				size_t np = 0;
				uint32_t k = 0;
				while (k < m.count && wire_next_name(&m, &np, names[k])) {
					namep[k] = names[k];
					k++;
				}
				if (k != m.count)
					abort(); /* the decoder accepted a list next_name cannot read */
				m.names = namep;
			}
			struct dnet_pbuf b = { 0 };
			struct dnet_proto_msg m2;
			memset(&m2, 0, sizeof m2);
			if (wire_encode(&b, &m, &e) < 0 || wire_decode(b.p, b.len, &m2, &e) < 0 ||
			    m2.type != m.type || m2.id != m.id || m2.node != m.node || m2.data_len != m.data_len ||
			    (m.data_len && memcmp(m2.data, m.data, m.data_len) != 0))
				abort();
			wire_pbuf_free(&b);
		}
		pos += flen;
	}
	return 0;
}

/* Seeds: one valid frame of several request and reply types. */
const struct fuzz_seed *fuzz_seeds(size_t *n)
{
	static struct fuzz_seed seeds[8];
	static struct dnet_pbuf bufs[8];
	static size_t count;
	if (!count) {
		static const uint8_t blk[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
		struct dnet_proto_msg m[7];
		memset(m, 0, sizeof m);
		m[0].type = DNET_MSG_HELLO;
		m[0].ver_major = DNET_PROTO_VERSION_MAJOR;
		for (unsigned i = 0; i < 7; i++)
			m[i].node = 1 + i % 2; /* HELLO's, and the node each request names (2.0) */
		m[1].type = DNET_MSG_READ;
		m[1].off = 0x40200;
		m[1].width = 8;
		m[2].type = DNET_MSG_WRITE;
		m[2].off = 0x40000;
		m[2].width = 8;
		m[2].val[0] = 0x1234;
		m[3].type = DNET_MSG_WRITE_BLOCK;
		m[3].off = 0x10000;
		m[3].len = sizeof blk;
		m[3].data = blk;
		m[3].data_len = sizeof blk;
		m[4].type = DNET_MSG_WAIT;
		m[4].off = 0x40200;
		m[4].mask = 5;
		m[4].timeout_ns = 1000;
		m[5].type = DNET_MSG_STAT;
		strcpy(m[5].name, "vtime_ns");
		m[6].type = DNET_MSG_DELAY;
		m[6].ns = 100;
		for (unsigned i = 0; i < 7; i++) {
			struct dnet_err e = { 0 };
			m[i].id = i + 1;
			if (wire_encode(&bufs[count], &m[i], &e) == 0) {
				seeds[count] = (struct fuzz_seed){ bufs[count].p, bufs[count].len };
				count++;
			}
		}
		struct dnet_err e = { 0 };
		if (wire_encode_error(&bufs[count], 9, DNET_EINVAL, "bad", &e) == 0) {
			seeds[count] = (struct fuzz_seed){ bufs[count].p, bufs[count].len };
			count++;
		}
	}
	*n = count;
	return seeds;
}
