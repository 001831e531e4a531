/* dsh's completion (dsh/complete.c) over a table of (line, point) ->
 * candidates, on an emulator of two nodes (stat and params names come
 * from the backend); and the check's word counts from the same table. */
/* Decisions pinned here (docs/decisions.md): D-CMD-ARGS. */
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "dsh.h"

static struct dsh dd;

/* The candidates of line completed at point (-1: its end), joined by
 * blanks; "FILES" when readline is to complete a file name. */
static const char *cands(const char *line, int point)
{
	static char out[8192];
	struct dsh_completion c;
	dsh_complete(&dd, line, point < 0 ? strlen(line) : (size_t)point, &c);
	out[0] = 0;
	if (c.files)
		strcat(out, "FILES");
	for (size_t i = 0; i < c.n; i++) {
		if (out[0])
			strncat(out, " ", sizeof out - strlen(out) - 1);
		strncat(out, c.v[i], sizeof out - strlen(out) - 1);
	}
	dsh_completion_free(&c);
	return out;
}

static void table(void)
{
	static const struct { const char *line; int point; const char *want; } t[] = {
		/* command names, also after ';' and '@K' */
		{ "llcm_r", -1, "llcm_read" },
		{ "echo x; llcm_r", -1, "llcm_read" },
		{ "@2 llcm_w", -1, "llcm_write" },
		{ "pe", -1, "peek" },
		/* peek, poke: their regions, then width= (a keyword: D-RAW-WIDTH) */
		{ "peek ", -1, "lhb llcm pw sreg ureg" },
		{ "peek l", -1, "lhb llcm" },
		{ "peek llcm 0x10 ", -1, "width=" },
		{ "poke ", -1, "llcm sreg ureg ww" },
		{ "poke llcm 0 5 ", -1, "force width=" },
		{ "poke llcm 0 5 width=32 f", -1, "force" },
		/* sodimm */
		{ "sodimm ", -1, "read write" },
		{ "sodimm w", -1, "write" },
		{ "sodimm read 0 ", -1, "" },
		/* dump */
		{ "dump s", -1, "sodimm sreg" },
		/* fault */
		{ "fault ", -1, "clear corrupt delay drop dup reorder rto seed show stall" },
		{ "fault d", -1, "delay drop dup" },
		{ "fault drop 5% f", -1, "for from" },
		{ "fault drop 5% from 1 t", -1, "to" },
		{ "fault seed ", -1, "" },
		/* set */
		{ "set ", -1, "+e -e base gap myvar posted sync_area timeout wid" },
		{ "set posted ", -1, "off on" },
		{ "set po", -1, "posted" },
		/* status, lh */
		{ "status ", -1, "ring" },
		{ "lh r", -1, "ring" },
		/* params, stat: the backend's names */
		{ "params fault.ru", -1, "fault.rules" },
		{ "stat vtime", -1, "vtime_ns" },
		/* bench: the experiments, all, quick, its keys */
		{ "bench E", -1, "E1 E2 E3 E4 E5 E6 E7 E8 E9" },
		{ "bench E1 q", -1, "quick" },
		{ "bench E1 js", -1, "json=" },
		{ "bench a", -1, "all" },
		/* registers and fields */
		{ "reg ctl_", -1, "ctl_reset ctl_status" },
		{ "reg ctl_reset.", -1, "ctl_reset.value" },  /* its one field */
		{ "reg ctl_st", -1, "ctl_status" },
		{ "reg ctl_status.status_e", -1, "ctl_status.status_empty" },
		{ "reg ctl_status ", -1, "= confirm" },
		{ "watch prim_counter_r", -1, "prim_counter_reset" },
		{ "ureg_read prim_counter_r", -1, "" },        /* write-only */
		{ "ureg_write prim_counter_r", -1, "prim_counter_reset" },
		{ "sreg_read sma", -1, "sma_lid" },
		{ "sreg_write am", -1, "amt" },
		{ "sreg_write amt ", -1, "addr= lid= wid=" },
		{ "assert la", -1, "last" },
		{ "wait ", -1, "NULL" },  /* checked below: all, regions, registers, keys */
		{ "wait al", -1, "all allow=" },
		{ "wait allow=status_f", -1, "allow=status_full" },
		{ "wait allow=rc_state,status_f", -1, "allow=rc_state,status_full" },
		/* prim: names first, then its keys, force and wait */
		{ "prim V", -1, "VL VLI VLS VS VSI VSS" },
		{ "prim VS si", -1, "size=" },
		{ "prim VS size=0x10 si", -1, "" },         /* a key once */
		{ "prim VS w", -1, "wait ww= wwaddr= wwsize=" },
		{ "prim VS allow=rc_o", -1, "allow=rc_overrun" },
		{ "botf type=RV", -1, "type=RVL type=RVLI type=RVLS type=RVS type=RVSI type=RVSS" },
		/* help: command names; source, replay: files */
		{ "help ben", -1, "bench" },
		{ "source ", -1, "FILES" },
		{ "replay x", -1, "FILES" },
		/* variables, snapshots */
		{ "unset my", -1, "myvar" },
		{ "diff sn", -1, "snap1" },
		/* the point inside the line: the word up to it */
		{ "peek llcm", 6, "lhb llcm" },
		/* nothing after an unknown command */
		{ "frob ", -1, "" },
	};
	for (unsigned i = 0; i < sizeof t / sizeof t[0]; i++) {
		const char *got = cands(t[i].line, t[i].point);
		if (strcmp(t[i].want, "NULL") == 0)
			continue;
		if (strcmp(got, t[i].want) == 0) {
			t_pass++;
		} else {
			t_fail++;
			fprintf(stderr, "FAIL [%s] '%s' at %d: expected [%s], got [%s]\n", t_name, t[i].line,
				t[i].point, t[i].want, got);
		}
	}
	/* a register with fields: every field after the dot */
	const char *fl = cands("reg ctl_status.", -1);
	CHECK(strstr(fl, "ctl_status.status_empty") && strncmp(fl, "ctl_status.", 11) == 0);
	const char *w = cands("wait ", -1);
	CHECK(strstr(w, "all ") && strstr(w, "llcm") && strstr(w, "ctl_status") && strstr(w, "timeout="));
	/* REG. and key= are completed further: no blank after them */
	struct dsh_completion c;
	dsh_complete(&dd, "prim VS si", 10, &c);
	CHECK(c.no_space);
	CHECK_EQ(c.word, 8);
	dsh_completion_free(&c);
	dsh_complete(&dd, "peek ll", 7, &c);
	CHECK(!c.no_space);
	dsh_completion_free(&c);
}

/* Every command's args parse into words whose kinds exist, and the check's
 * counts come from them. */
static void arity(void)
{
	static const struct { const char *name; int lo, hi; } t[] = {
		{ "barrier", 0, 1 }, { "signal", 1, 2 },
		{ "info", 0, 0 }, { "dump", 1, 3 }, { "pw_read", 1, 2 }, { "status", 0, 1 },
	};
	for (unsigned i = 0; i < sizeof t / sizeof t[0]; i++) {
		int lo, hi;
		CHECK(dsh_cmd_arity(dsh_cmd_find(t[i].name), &lo, &hi));
		CHECK_EQ(lo, t[i].lo);
		CHECK_EQ(hi, t[i].hi);
	}
	int lo, hi;
	CHECK(!dsh_cmd_arity(dsh_cmd_find("fault"), &lo, &hi)); /* forms: checked when it runs */
	unsigned n;
	const struct dsh_cmd *cmds = dsh_cmds(&n);
	for (unsigned i = 0; i < n; i++) {
		CHECK(cmds[i].args != NULL);
		const char *a = cmds[i].args ? cmds[i].args : "";
		static const char *const known[] = { "<cmd>", "<prim>", "<reg>", "<ureg.r>", "<ureg.w>",
			"<sreg.r>", "<sreg.w>", "<cond>", "<file>", "<stat>", "<param>", "<bench>", "<flag>",
			"<var>", "<snap>" };
		for (const char *p = strchr(a, '<'); p; p = strchr(p + 1, '<')) {
			bool ok = false;
			for (unsigned k = 0; k < sizeof known / sizeof known[0]; k++)
				ok |= strncmp(p, known[k], strlen(known[k])) == 0;
			if (!ok)
				fprintf(stderr, "%s: unknown kind at '%s'\n", cmds[i].name, p);
			CHECK(ok);
		}
	}
}

int main(void)
{
	struct dnet_err e;
	dd.run.quit_code = -1;
	dd.opts.timeout_ns = DSH_DEFAULT_TIMEOUT_NS;
	if (dnet_open("sim:nodes=2", &dd.dev, &e) < 0) {
		fprintf(stderr, "cannot open the emulator: %s\n", e.msg);
		return 1;
	}
	dd.reg.db = dnet_regs(&dd.reg.ndb);
	CHECK_EQ(dsh_var_set(&dd, "myvar", "1"), 0);
	static struct dsh_snap snap = { .name = (char *)"snap1" };
	dd.script.snaps = &snap;
	RUN(table);
	RUN(arity);
	dd.script.snaps = NULL;
	dsh_vars_free(&dd);
	dnet_close(dd.dev);
	return t_summary("test_dsh_complete");
}
