/* The options of a backend spec (dnet/spec.h, D-SPEC-OPTIONS): read, set and added, with
 * the edge cases a splice by string got wrong or might -- a key absent, a
 * key that is a prefix of another ("node", "nodes"), a value holding '=',
 * an empty value, a flag, a buffer too small (refused, never cut short). */
#include "dnet/dnet.h"
#include "harness.h"

static void get(void)
{
	char v[64];
	struct dnet_err e = { 0 };
	CHECK_EQ(dnet_spec_get("sim:nodes=4,cold", "nodes", v, sizeof v, &e), 1);
	CHECK_STR(v, "4");
	CHECK_EQ(dnet_spec_get("sim:nodes=4,cold", "cold", v, sizeof v, &e), 0); /* a flag */
	CHECK_STR(v, "");
	CHECK_EQ(dnet_spec_get("sim:nodes=4,cold", "mtu", v, sizeof v, &e), -DNET_ENOENT);
	CHECK(strstr(e.msg, "'mtu'") != NULL);
	CHECK_EQ(dnet_spec_get("sim", "nodes", v, sizeof v, &e), -DNET_ENOENT);
	CHECK_EQ(dnet_spec_get("sim:", "nodes", v, sizeof v, &e), -DNET_ENOENT);
	/* "node" is not "nodes", nor "xnodes" "nodes", in either order */
	CHECK_EQ(dnet_spec_get("remote:unix:/s,nodes=3", "node", v, sizeof v, &e), -DNET_ENOENT);
	CHECK_EQ(dnet_spec_get("remote:unix:/s,nodes=3,node=2", "node", v, sizeof v, &e), 1);
	CHECK_STR(v, "2");
	CHECK_EQ(dnet_spec_get("sim:xnodes=9", "nodes", v, sizeof v, &e), -DNET_ENOENT);
	CHECK_EQ(dnet_spec_get("sim:node,nodes=5", "nodes", v, sizeof v, &e), 1);
	CHECK_STR(v, "5");
	/* a value with '=' and ':' is the whole rest of the option */
	CHECK_EQ(dnet_spec_get("sim:faults=drop:20%+seed:3,x=a=b", "x", v, sizeof v, &e), 1);
	CHECK_STR(v, "a=b");
	CHECK_EQ(dnet_spec_get("sim:faults=drop:20%+seed:3,x=a=b", "faults", v, sizeof v, &e), 1);
	CHECK_STR(v, "drop:20%+seed:3");
	/* an empty value is a value, not a flag */
	CHECK_EQ(dnet_spec_get("sim:trace=,cold", "trace", v, sizeof v, &e), 1);
	CHECK_STR(v, "");
	/* the name and the first (positional) option are no keys */
	CHECK_EQ(dnet_spec_get("remote:unix:/s", "remote", v, sizeof v, &e), -DNET_ENOENT);
	CHECK_EQ(dnet_spec_get("remote:unix:/s", "unix", v, sizeof v, &e), -DNET_ENOENT);
	/* too small: refused, buf empty, not the first bytes of the value */
	char small[4] = "zzz";
	CHECK_EQ(dnet_spec_get("sim:faults=drop:5%", "faults", small, sizeof small, &e), -DNET_EINVAL);
	CHECK_STR(small, "");
	CHECK(strstr(e.msg, "does not fit") != NULL);
	CHECK_EQ(dnet_spec_get("sim:nodes=123", "nodes", small, sizeof small, &e), 1); /* 3 + NUL fits */
	CHECK_STR(small, "123");
	CHECK_EQ(dnet_spec_get("sim:nodes=1234", "nodes", small, sizeof small, &e), -DNET_EINVAL);
	/* presence only */
	CHECK_EQ(dnet_spec_get("sim:nodes=1234", "nodes", NULL, 0, NULL), 1);
	CHECK_EQ(dnet_spec_get("sim:cold", "cold", NULL, 0, NULL), 0);
}

static void set(void)
{
	char b[64];
	struct dnet_err e = { 0 };
	CHECK_OK(dnet_spec_set("sim", "nodes", "2", b, sizeof b, &e), &e);
	CHECK_STR(b, "sim:nodes=2");
	CHECK_OK(dnet_spec_set("sim:", "nodes", "2", b, sizeof b, &e), &e);
	CHECK_STR(b, "sim:nodes=2");
	CHECK_OK(dnet_spec_set("sim:cold", "nodes", "2", b, sizeof b, &e), &e);
	CHECK_STR(b, "sim:cold,nodes=2");
	/* replaced where given, the other options as they were */
	CHECK_OK(dnet_spec_set("sim:nodes=4,cold", "nodes", "8", b, sizeof b, &e), &e);
	CHECK_STR(b, "sim:nodes=8,cold");
	CHECK_OK(dnet_spec_set("sim:cold,nodes=4", "nodes", NULL, b, sizeof b, &e), &e);
	CHECK_STR(b, "sim:cold,nodes");
	CHECK_OK(dnet_spec_set("remote:unix:/s,nodes=3", "node", "2", b, sizeof b, &e), &e);
	CHECK_STR(b, "remote:unix:/s,nodes=3,node=2");
	CHECK_OK(dnet_spec_set("sim:x=1", "x", "a=b", b, sizeof b, &e), &e);
	CHECK_STR(b, "sim:x=a=b");
	CHECK_OK(dnet_spec_set("sim:cold", "trace", "", b, sizeof b, &e), &e);
	CHECK_STR(b, "sim:cold,trace=");
	/* in place */
	snprintf(b, sizeof b, "sim:nodes=4");
	CHECK_OK(dnet_spec_set(b, "cold", NULL, b, sizeof b, &e), &e);
	CHECK_OK(dnet_spec_set(b, "nodes", "16", b, sizeof b, &e), &e);
	CHECK_STR(b, "sim:nodes=16,cold");
	/* bad keys and values, and no room: refused, nothing half-written */
	CHECK_EQ(dnet_spec_set("sim", "a,b", "1", b, sizeof b, &e), -DNET_EINVAL);
	CHECK_EQ(dnet_spec_set("sim", "", "1", b, sizeof b, &e), -DNET_EINVAL);
	CHECK_EQ(dnet_spec_set("sim", "faults", "a,b", b, sizeof b, &e), -DNET_EINVAL);
	char small[12];
	CHECK_EQ(dnet_spec_set("sim:cold", "nodes", "2", small, sizeof small, &e), -DNET_EINVAL);
	CHECK_STR(small, "");
	char exact[17]; /* "sim:cold,nodes=2" and its NUL */
	CHECK_OK(dnet_spec_set("sim:cold", "nodes", "2", exact, sizeof exact, &e), &e);
	CHECK_STR(exact, "sim:cold,nodes=2");
}

static void add(void)
{
	char b[64];
	struct dnet_err e = { 0 };
	CHECK_OK(dnet_spec_add("sim", "faults=drop:5%,cold", b, sizeof b, &e), &e);
	CHECK_STR(b, "sim:faults=drop:5%,cold");
	/* nothing replaced: the backend refuses a key given twice (D-SPEC-ONCE) */
	CHECK_OK(dnet_spec_add("sim:nodes=3", "nodes=4", b, sizeof b, &e), &e);
	CHECK_STR(b, "sim:nodes=3,nodes=4");
	CHECK_OK(dnet_spec_add("sim:nodes=3", "", b, sizeof b, &e), &e);
	CHECK_STR(b, "sim:nodes=3");
	char small[8];
	CHECK_EQ(dnet_spec_add("sim:nodes=3", "cold", small, sizeof small, &e), -DNET_EINVAL);
	CHECK_STR(small, "");
}

static void is(void)
{
	CHECK(dnet_spec_is("sim", "sim"));
	CHECK(dnet_spec_is("sim:nodes=2", "sim"));
	CHECK(!dnet_spec_is("simx", "sim"));
	CHECK(!dnet_spec_is("sim,nodes=2", "sim")); /* dnet_open refuses it too */
	CHECK(dnet_spec_is("devmem:0x0@/f,privileged", "devmem"));
	CHECK(!dnet_spec_is("remote:unix:/sim", "sim"));
	CHECK(!dnet_spec_is(NULL, "sim"));
}

int main(void)
{
	RUN(get);
	RUN(set);
	RUN(add);
	RUN(is);
	return t_summary("test_spec");
}
