/* dnetd: serve a libdnet backend (an emulated cluster, or a real node) over
 * a socket to many clients at once.  See man/dnetd.8 and docs/protocol.md.
 *
 * Exit status: 0 ok, 1 other failure (e.g. cannot listen), 2 usage,
 * 3 the backend could not be opened.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <fcntl.h>
#include <limits.h>
#include <syslog.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dnet/dnet.h"
#include "dnet/parse.h"
#include "remote/dnetd/server.h"
#include "../../../common/termsig.h" /* the programs' one signal set-up */
#include "../../../common/optlist.h" /* --list-options */
#include "../../../common/optsuggest.h"

#define EXIT_USAGE   2
#define EXIT_BACKEND 3

static void usage(FILE *f)
{
	fprintf(f,
		"usage: dnetd --sim [-N N] [--cold] [--capacity MB] [OPTIONS]\n"
		"       dnetd --backend SPEC [OPTIONS]\n"
		"\n"
		"Serve a DIMMnet-2 backend over a socket to many clients (the `remote` backend).\n"
		"\n"
		"  --sim                 serve an emulated cluster (sim:nodes=N)\n"
		"  -N, --nodes N         nodes of the emulated cluster (default 2)\n"
		"      --cold            start the emulated nodes cold, as at power-on\n"
		"      --capacity MB     SO-DIMM capacity per module of the emulated nodes\n"
		"      --sim-args ARGS   further sim arguments, appended as given\n"
		"  -b, --backend SPEC    serve any backend, e.g. devmem:0xfe000000\n"
		"  -l, --listen ADDR     unix:PATH or tcp:HOST:PORT; tcp:PORT binds 127.0.0.1;\n"
		"                        TCP requires a token.  Default: $DNETD_SOCKET, else\n"
		"                        $XDG_RUNTIME_DIR/dnetd.sock, else for root\n"
		"                        /run/dnetd/dnetd.sock, else /tmp/dnetd-$UID.sock\n"
		"  -t, --token T         the admin token: clients presenting T may be privileged\n"
		"                        (visible in ps: prefer --token-file)\n"
		"      --token-file F    read the admin token from the first line of F (not\n"
		"                        readable by others)\n"
		"      --user-tokens F   user tokens, one a line: TOKEN node=N wid=W[,W]; a client\n"
		"                        presenting one is a user of that node and those WIDs only\n"
		"                        (F not readable by others; # comments)\n"
		"      --allow F         UNIX socket: the nodes and WIDs other uids may use, one a\n"
		"                        line: user:NAME|uid:N|group:NAME node=N wid=W[,W]; a uid in\n"
		"                        no line is refused (without --allow: any node and WID)\n"
		"      --max-clients N   serve at most N clients at once (default %u)\n"
		"      --once            exit when the first client disconnects\n"
		"      --hello-grace DUR  drop a connection that has not said HELLO within DUR\n"
		"                        (default 10s; whole seconds)\n"
		"      --max-unauth N    at most N connections waiting to say HELLO (default 16)\n"
		"      --max-per-peer N  at most N clients per uid (UNIX) or address (TCP); 0: no cap\n"
		"      --idle-timeout DUR  drop a client silent for DUR (whole seconds; default 0:\n"
		"                        never)\n"
		"      --idle-evict DUR  when full, a new client replaces the one idle longest if\n"
		"                        idle more than DUR (whole seconds; default 60s; 0: never)\n"
		"      --vtime-budget DUR  virtual time one user token, uid (UNIX) or address (TCP)\n"
		"                        may add to the shared clock by DELAY and WAIT: DUR, refilled\n"
		"                        at DUR a minute (default 1h; e.g. 10m, 30s; 0: no cap)\n"
		"      --lockstep N      once N clients said HELLO, serve device requests in virtual-\n"
		"                        time order with a host clock per node (--sim adds timelines):\n"
		"                        the same run gives the same virtual times (batch runs only)\n"
		"      --pidfile F       write the daemon's pid to F and hold a lock on it (a second\n"
		"                        dnetd with the same F refuses to start); removed at exit\n"
		"      --syslog          log to syslog (facility daemon) instead of stderr\n"
		"      --socket-group G  make the UNIX socket 0660 with group G: its members connect\n"
		"                        as user clients (root and the daemon's uid may be privileged)\n"

		"      --foreground      stay in the foreground (the default; there is no other mode)\n"
		"      --ping[=ADDR]     connect to the dnetd at ADDR (default: the socket a plain\n"
		"                        dnetd and `-b remote` use) as a client, print what it\n"
		"                        serves and exit (0 if it answered); uses --token/--token-file\n"
		"                        or $DNET_TOKEN\n"
		"  -v, --verbose         log connections (-v) and every request (-vv) to stderr\n"
		"  -h, --help            this text\n"
		"  -V, --version         version\n"
		"  --list-options        every option, one a line (for shell completion)\n"
		"\n"
		"Privilege is dnetd's decision; a HELLO can only ask for less. UNIX socket: root and\n"
		"the daemon's uid may be privileged; other uids are users (confined by --allow).\n"
		"TCP: the admin token admits privileged clients, a user token a user confined to\n"
		"its node and WIDs. A confined client asking for privilege or another node or WID\n"
		"is refused.\n"
		"\n"
		"Exit status: 0 ok, 1 failure, 2 usage error, 3 backend could not be opened.\n",
		DNET_SRV_DEFAULT_MAX_CLIENTS);
}

__attribute__((format(printf, 1, 2)))
static int usage_error(const char *fmt, ...)
{
	va_list ap;
	fputs("dnetd: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\n(dnetd --help for usage)\n", stderr);
	return EXIT_USAGE;
}

/* Log lines carry a UTC time stamp (ms) on stderr; with --syslog they go
 * to syslog(3) instead, which stamps them itself. */
static bool use_syslog;

static void log_line(void *ctx, int level, const char *msg)
{
	(void)ctx;
	if (use_syslog) {
		syslog(level == DNET_SRV_LOG_ERR ? LOG_ERR : LOG_INFO, "%s", msg);
		return;
	}
	struct timespec ts;
	struct tm tm;
	char when[32];
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm);
	fprintf(stderr, "%s.%03ldZ dnetd[%ld]: %s%s\n", when, ts.tv_nsec / 1000000L, (long)getpid(),
		level == DNET_SRV_LOG_ERR ? "error: " : "", msg);
}

/* The pid file is created, locked (lockf) and kept open: a second dnetd
 * with the same pid file refuses to start instead of overwriting it. */
static int pidfile_lock(const char *path)
{
	/* O_NOFOLLOW: a planted symlink must not make dnetd write another file. */
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		fprintf(stderr, "dnetd: cannot open pid file %s: %s\n", path, strerror(errno));
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		fprintf(stderr, "dnetd: pid file %s is not a regular file\n", path);
		close(fd);
		return -1;
	}
	if (lockf(fd, F_TLOCK, 0) != 0) {
		char old[32] = "";
		ssize_t n = pread(fd, old, sizeof old - 1, 0);
		old[n > 0 ? n : 0] = 0;
		old[strcspn(old, "\n")] = 0;
		fprintf(stderr, "dnetd: pid file %s is locked by a running dnetd (pid %s)\n", path,
			old[0] ? old : "?");
		close(fd);
		return -1;
	}
	char buf[32];
	int len = snprintf(buf, sizeof buf, "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) != 0 || pwrite(fd, buf, (size_t)len, 0) != len) {
		fprintf(stderr, "dnetd: cannot write pid file %s: %s\n", path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static int read_token_file(const char *path, char *tok, size_t len)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "dnetd: cannot read token file %s: %s\n", path, strerror(errno));
		return -1;
	}
	struct stat st;
	if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0007)) {
		fprintf(stderr, "dnetd: token file %s is %s by others (mode %04o): it holds a secret; chmod o-rwx %s\n",
			path, (st.st_mode & 0002) ? "writable" : "readable", (unsigned)(st.st_mode & 07777), path);
		fclose(f);
		return -1;
	}
	if (S_ISREG(st.st_mode) && (st.st_mode & 0070))
		fprintf(stderr, "dnetd: warning: token file %s is readable by its group (chmod 600)\n", path);
	char line[1024];
	if (!fgets(line, sizeof line, f))
		line[0] = 0;
	fclose(f);
	size_t n = strcspn(line, "\r\n");
	while (n && (line[n - 1] == ' ' || line[n - 1] == '\t'))
		n--;
	line[n] = 0;
	if (n == 0) {
		fprintf(stderr, "dnetd: token file %s has an empty first line\n", path);
		return -1;
	}
	if (n >= len) {
		fprintf(stderr, "dnetd: token in %s is longer than %u bytes\n", path, DNET_PROTO_TOKEN_MAX);
		return -1;
	}
	memcpy(tok, line, n + 1);
	return 0;
}

/* --vtime-budget: a duration (dnet_parse_duration: "30s", "10m", "2h");
 * at most 2^62 ns, the end of virtual time. */
static int parse_budget(const char *s, uint64_t *ns, struct dnet_err *err)
{
	if (dnet_parse_duration(s, ns, "--vtime-budget", err))
		return -DNET_EINVAL;
	if (*ns > DNET_VTIME_END)
		return dnet_seterr(err, DNET_EINVAL, "--vtime-budget: '%s' is past the end of virtual time (2^62 ns)", s);
	if (*ns == 0)
		*ns = UINT64_MAX; /* 0: no cap */
	return 0;
}

/* Client mode: connect, say what the daemon serves, disconnect. */
static int do_ping(const char *addr, const char *token)
{
	char spec[DNET_SPEC_MAX];
	int n = snprintf(spec, sizeof spec, "remote:%s,timeout=5s%s%s", addr, token[0] ? ",token=" : "",
			 token);
	if (n < 0 || (size_t)n >= sizeof spec)
		return usage_error("--ping: address too long");
	struct dnet_dev *dev = NULL;
	struct dnet_err err;
	if (dnet_open(spec, &dev, &err) != 0) {
		fprintf(stderr, "dnetd: %s\n", err.msg);
		return 1;
	}
	unsigned caps = dnet_dev_caps(dev);
	char names[128];
	printf("dnetd at %s: %u node%s, caps %s", addr, dnet_node_count(dev),
	       dnet_node_count(dev) == 1 ? "" : "s", dnet_caps_format(caps, ",", names, sizeof names));
	uint64_t now = 0;
	if (dnet_now(dev, &now, &err) == 0 && (caps & DNET_CAP_VIRTUAL_TIME))
		printf(", virtual time %llu ns", (unsigned long long)now);
	printf("\n");
	dnet_close(dev);
	return 0;
}

int main(int argc, char **argv)
{
	enum { O_SIM = 256, O_COLD, O_CAPACITY, O_SIM_ARGS, O_TOKEN_FILE, O_MAX_CLIENTS, O_ONCE,
	       O_PIDFILE, O_FOREGROUND, O_PING, O_SYSLOG, O_SOCKET_GROUP, O_HELLO_GRACE, O_MAX_UNAUTH,
	       O_MAX_PER_PEER, O_IDLE, O_LOCKSTEP, O_USER_TOKENS, O_ALLOW, O_IDLE_EVICT, O_VTIME_BUDGET, O_LIST };
	static const struct option opts[] = {
		{"sim", no_argument, NULL, O_SIM},
		{"nodes", required_argument, NULL, 'N'},
		{"cold", no_argument, NULL, O_COLD},
		{"capacity", required_argument, NULL, O_CAPACITY},
		{"sim-args", required_argument, NULL, O_SIM_ARGS},
		{"backend", required_argument, NULL, 'b'},
		{"listen", required_argument, NULL, 'l'},
		{"token", required_argument, NULL, 't'},
		{"token-file", required_argument, NULL, O_TOKEN_FILE},
		{"max-clients", required_argument, NULL, O_MAX_CLIENTS},
		{"once", no_argument, NULL, O_ONCE},
		{"pidfile", required_argument, NULL, O_PIDFILE},
		{"foreground", no_argument, NULL, O_FOREGROUND},
		{"ping", optional_argument, NULL, O_PING},
		{"syslog", no_argument, NULL, O_SYSLOG},
		{"socket-group", required_argument, NULL, O_SOCKET_GROUP},
		{"hello-grace", required_argument, NULL, O_HELLO_GRACE},
		{"max-unauth", required_argument, NULL, O_MAX_UNAUTH},
		{"max-per-peer", required_argument, NULL, O_MAX_PER_PEER},
		{"idle-timeout", required_argument, NULL, O_IDLE},
		{"lockstep", required_argument, NULL, O_LOCKSTEP},
		{"user-tokens", required_argument, NULL, O_USER_TOKENS},
		{"allow", required_argument, NULL, O_ALLOW},
		{"idle-evict", required_argument, NULL, O_IDLE_EVICT},
		{"vtime-budget", required_argument, NULL, O_VTIME_BUDGET},
		{"verbose", no_argument, NULL, 'v'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{"list-options", no_argument, NULL, O_LIST},
		{NULL, 0, NULL, 0},
	};
	bool sim = false, cold = false, once = false;
	const char *backend = NULL, *listen_addr = NULL, *token_arg = NULL, *token_file = NULL;
	const char *pidfile = NULL, *sim_args = NULL, *ping = NULL, *socket_group = NULL;
	const char *user_tokens_file = NULL, *allow_file = NULL;
	uint64_t nodes = 0, capacity = 0, max_clients = 0, hello_grace = 0, max_unauth = 0, max_per_peer = 0,
		 idle = 0, lockstep = 0, idle_evict = DNET_SRV_DEFAULT_IDLE_EVICT_S,
		 vtime_budget = DNET_SRV_DEFAULT_VTIME_BUDGET_NS;
	int verbose = 0, c;
	struct dnet_err err;
	dnet_clearerr(&err);

	opterr = 0;
	static const char optstring[] = ":N:b:l:t:vhV";
	for (int before = optind; (c = getopt_long(argc, argv, optstring, opts, NULL)) != -1; before = optind) {
		switch (c) {
		case O_LIST: opt_list(stdout, optstring, opts); return 0;
		case O_SIM: sim = true; break;
		case 'N':
			if (dnet_parse_u64(optarg, 3071, &nodes, "node count", &err) || nodes < 1)
				return usage_error("-N: %s", err.msg[0] ? err.msg : "at least 1 node");
			break;
		case O_COLD: cold = true; break;
		case O_CAPACITY:
			if (dnet_parse_u64(optarg, 8192, &capacity, "capacity (MB)", &err) || capacity < 1)
				return usage_error("--capacity: %s", err.msg[0] ? err.msg : "must be positive");
			break;
		case O_SIM_ARGS: sim_args = optarg; break;
		case 'b': backend = optarg; break;
		case 'l': listen_addr = optarg; break;
		case 't': token_arg = optarg; break;
		case O_TOKEN_FILE: token_file = optarg; break;
		case O_MAX_CLIENTS:
			if (dnet_parse_u64(optarg, 65536, &max_clients, "max clients", &err) || max_clients < 1)
				return usage_error("--max-clients: %s", err.msg[0] ? err.msg : "at least 1");
			break;
		case O_ONCE: once = true; break;
		case O_PIDFILE: pidfile = optarg; break;
		case O_FOREGROUND: break;
		case O_PING:
			/* --ping ADDR and --ping=ADDR; alone: the default socket. */
			if (!optarg && optind < argc && argv[optind][0] != '-')
				optarg = argv[optind++];
			ping = optarg ? optarg : "";
			break;
		case O_SYSLOG: use_syslog = true; break;
		case O_SOCKET_GROUP: socket_group = optarg; break;
		case O_HELLO_GRACE:
		case O_MAX_UNAUTH:
		case O_MAX_PER_PEER:
		case O_IDLE: {
			uint64_t *v = c == O_HELLO_GRACE ? &hello_grace : c == O_MAX_UNAUTH ? &max_unauth
				    : c == O_MAX_PER_PEER ? &max_per_peer : &idle;
			const char *name = c == O_HELLO_GRACE ? "--hello-grace" : c == O_MAX_UNAUTH ? "--max-unauth"
					   : c == O_MAX_PER_PEER ? "--max-per-peer" : "--idle-timeout";
			if ((c == O_MAX_UNAUTH || c == O_MAX_PER_PEER
				     ? dnet_parse_u64(optarg, 86400, v, name, &err)
				     : dnet_parse_seconds(optarg, 86400, v, name, &err)) ||
			    ((c == O_HELLO_GRACE || c == O_MAX_UNAUTH) && *v == 0))
				return err.msg[0] ? usage_error("%s", err.msg)
						  : usage_error("%s: at least 1%s", name, c == O_HELLO_GRACE ? "s" : "");
			break;
		}
		case O_USER_TOKENS: user_tokens_file = optarg; break;
		case O_ALLOW: allow_file = optarg; break;
		case O_IDLE_EVICT:
			if (dnet_parse_seconds(optarg, 86400, &idle_evict, "--idle-evict", &err))
				return usage_error("%s", err.msg);
			break;
		case O_VTIME_BUDGET:
			if (parse_budget(optarg, &vtime_budget, &err))
				return usage_error("%s", err.msg);
			break;
		case O_LOCKSTEP:
			if (dnet_parse_u64(optarg, 65536, &lockstep, "--lockstep client count", &err) || lockstep < 1)
				return usage_error("--lockstep: %s", err.msg[0] ? err.msg : "at least 1 client");
			break;
		case 'v': verbose++; break;
		case 'h': usage(stdout); return 0;
		case 'V':
			printf("dnetd %s (libdnet %s, protocol %u.%u)\n", DNET_VERSION_STRING, dnet_version(),
			       DNET_PROTO_VERSION_MAJOR, DNET_PROTO_VERSION_MINOR);
			return 0;
		case ':': return usage_error("option %s needs an argument", argv[optind - 1]);
		default: {
			char m[256];
			return usage_error("%s", opt_unknown_msg(opt_seen(argc, argv, before), opts, m, sizeof m));
		}
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	if (ping) {
		if (sim || backend || listen_addr)
			return usage_error("--ping is a client: no --sim, --backend or --listen with it");
		char tok[DNET_PROTO_TOKEN_MAX + 1] = "";
		if (token_arg)
			snprintf(tok, sizeof tok, "%s", token_arg);
		else if (token_file && read_token_file(token_file, tok, sizeof tok) != 0)
			return EXIT_USAGE;
		/* Without an address: the socket `-b remote` and a plain dnetd use. */
		char defping[160];
		if (!*ping) {
			if (rmt_sockspec_default(defping, sizeof defping, NULL, &err))
				return usage_error("--ping: %s", err.msg);
			ping = defping;
		}
		return do_ping(ping, tok);
	}
	if (sim == (backend != NULL))
		return usage_error("give exactly one of --sim or --backend SPEC");
	if (!sim && (nodes || cold || capacity || sim_args))
		return usage_error("-N, --cold, --capacity and --sim-args go with --sim");
	if (token_arg && token_file)
		return usage_error("give --token or --token-file, not both");

	char token[DNET_PROTO_TOKEN_MAX + 1] = "";
	if (token_arg) {
		if (!*token_arg || strlen(token_arg) > DNET_PROTO_TOKEN_MAX)
			return usage_error("--token must be 1..%u bytes", DNET_PROTO_TOKEN_MAX);
		snprintf(token, sizeof token, "%s", token_arg);
	} else if (token_file && read_token_file(token_file, token, sizeof token) != 0) {
		return EXIT_USAGE;
	}

	/* systemd socket activation (sd_listen_fds(3)): a socket passed as
	 * fd 3 for this very process is served, in place of --listen (the
	 * unit's socket is the explicit choice). */
	int activated_fd = -1;
	const char *lpid = getenv("LISTEN_PID"), *lfds = getenv("LISTEN_FDS");
	if (lpid && lfds && strtol(lpid, NULL, 10) == (long)getpid()) {
		if (strtol(lfds, NULL, 10) != 1)
			return usage_error("socket activation: LISTEN_FDS=%s, dnetd serves exactly one socket", lfds);
		activated_fd = 3;
		unsetenv("LISTEN_PID");
		unsetenv("LISTEN_FDS");
		unsetenv("LISTEN_FDNAMES");
	}
	char defaddr[160];
	if (!listen_addr) {
		const char *from;
		if (rmt_sockspec_default(defaddr, sizeof defaddr, &from, &err))
			return usage_error("--listen: %s", err.msg);
		listen_addr = defaddr;
		/* root's default is the units' socket (D-DNETD-SOCKET); without
		 * systemd's RuntimeDirectory= its directory may not exist yet */
		if (activated_fd < 0 && strcmp(from, "root") == 0 && mkdir("/run/dnetd", 0755) < 0 &&
		    errno != EEXIST)
			return usage_error("--listen: cannot create /run/dnetd for %s: %s", DNET_SOCKET_SYSTEM,
					   strerror(errno));
	}
	struct dnet_sockspec sa;
	if (rmt_sockspec_parse(listen_addr, &sa, &err))
		return usage_error("--listen: %s", err.msg);
	if (activated_fd < 0 && sa.tcp && !token[0] && !user_tokens_file)
		return usage_error("listening on TCP (%s) requires a token (--token-file F, --token T or "
				   "--user-tokens F)", listen_addr);
	if (activated_fd < 0 && sa.tcp && allow_file)
		return usage_error("--allow is for UNIX sockets (on TCP, --user-tokens confines clients)");

	char spec[DNET_SPEC_MAX];
	if (sim) {
		char nv[24], cv[24];
		snprintf(nv, sizeof nv, "%u", (unsigned)nodes);
		snprintf(cv, sizeof cv, "%u", (unsigned)capacity);
		snprintf(spec, sizeof spec, "sim");
		/* --sim-args added as given, after the options: one named twice
		 * is refused by the emulator (D-SPEC-ONCE) */
		if ((nodes && dnet_spec_set(spec, "nodes", nv, spec, sizeof spec, &err)) ||
		    (cold && dnet_spec_set(spec, "cold", NULL, spec, sizeof spec, &err)) ||
		    (capacity && dnet_spec_set(spec, "capacity", cv, spec, sizeof spec, &err)) ||
		    (sim_args && dnet_spec_add(spec, sim_args, spec, sizeof spec, &err)) ||
		    (lockstep /* a host clock per node (D-SIM-TIMELINES) */ &&
		     dnet_spec_add(spec, "timelines", spec, sizeof spec, &err)))
			return usage_error("sim arguments too long (%s)", err.msg);
	} else {
		if (strlen(backend) >= sizeof spec)
			return usage_error("backend spec too long");
		snprintf(spec, sizeof spec, "%s", backend);
	}

	/* The grant files: strict (every error names FILE:LINE), read once at
	 * start (restart dnetd to change them). */
	struct dnet_grants user_tokens = {0}, allow = {0};
	if (user_tokens_file && srv_grants_load(user_tokens_file, true, &user_tokens, &err) != 0) {
		fprintf(stderr, "dnetd: %s\n", err.msg);
		return EXIT_USAGE;
	}
	if (allow_file && srv_grants_load(allow_file, false, &allow, &err) != 0) {
		fprintf(stderr, "dnetd: %s\n", err.msg);
		srv_grants_free(&user_tokens);
		return EXIT_USAGE;
	}

	if (use_syslog)
		openlog("dnetd", LOG_PID, LOG_DAEMON);
	struct dnet_dev *dev = NULL;
	if (dnet_open(spec, &dev, &err) != 0) {
		char shown[DNET_SPEC_MAX + 8]; /* a proxied remote: backend's token stays secret */
		fprintf(stderr, "dnetd: cannot open backend '%s': %s\n", dnet_spec_redact(spec, shown, sizeof shown),
			err.msg);
		srv_grants_free(&user_tokens);
		srv_grants_free(&allow);
		return EXIT_BACKEND;
	}
	if (lockstep && !(dnet_dev_caps(dev) & DNET_CAP_VIRTUAL_TIME)) {
		fprintf(stderr, "dnetd: --lockstep needs a backend in virtual time (%s is not)\n",
			dnet_dev_spec(dev));
		dnet_close(dev);
		srv_grants_free(&user_tokens);
		srv_grants_free(&allow);
		return EXIT_USAGE;
	}

	/* Signals: block them, and let ppoll() unblock them while it waits, so
	 * that a SIGTERM is never lost between a check and the wait. */
	sigset_t block, orig;
	sigemptyset(&block);
	term_signals_set(&block, true);
	sigprocmask(SIG_BLOCK, &block, &orig);
	term_signals_watch();
	signal(SIGPIPE, SIG_IGN);
	term_signals_set(&orig, false);

	struct dnet_srv_config cfg = {
		.dev = dev,
		.listen = listen_addr,
		.activated = activated_fd >= 0,
		.listen_fd = activated_fd,
		.token = token[0] ? token : NULL,
		.max_clients = (unsigned)max_clients,
		.once = once,
		.sigmask = &orig,
		.stop = term_signal_flag(),
		.log = log_line,
		.verbose = verbose,
		.socket_group = socket_group,
		.hello_grace_s = (unsigned)hello_grace,
		.max_unauth = (unsigned)max_unauth,
		.max_per_peer = (unsigned)max_per_peer,
		.idle_timeout_s = (unsigned)idle,
		.lockstep = (unsigned)lockstep,
		.user_tokens = user_tokens_file ? &user_tokens : NULL,
		.allow = allow_file ? &allow : NULL,
		.idle_evict_s = idle_evict ? (unsigned)idle_evict : UINT_MAX,
		.vtime_budget_ns = vtime_budget,
	};
	struct dnet_srv *srv = NULL;
	if (srv_open(&srv, &cfg, &err) != 0) {
		log_line(NULL, DNET_SRV_LOG_ERR, err.msg);
		dnet_close(dev);
		srv_grants_free(&user_tokens);
		srv_grants_free(&allow);
		return 1;
	}
	int status = 0;
	int pidfd = -1;
	if (pidfile && (pidfd = pidfile_lock(pidfile)) < 0) {
		srv_close(srv);
		dnet_close(dev);
		srv_grants_free(&user_tokens);
		srv_grants_free(&allow);
		return 1;
	}
	printf("dnetd: serving %s (%u node%s) on %s\n", dnet_dev_spec(dev), dnet_node_count(dev),
	       dnet_node_count(dev) == 1 ? "" : "s", srv_address(srv));
	fflush(stdout);

	if (srv_run(srv, &err) != 0) {
		log_line(NULL, DNET_SRV_LOG_ERR, err.msg);
		status = 1;
	}
	if (verbose)
		log_line(NULL, DNET_SRV_LOG_INFO, "shutting down");
	srv_close(srv);
	dnet_close(dev);
	srv_grants_free(&user_tokens);
	srv_grants_free(&allow);
	if (pidfd >= 0) {
		unlink(pidfile);
		close(pidfd);
	}
	return status;
}
