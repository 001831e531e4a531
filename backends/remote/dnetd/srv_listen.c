/* dnetd's listening sockets: a UNIX socket (a stale one replaced, made
 * under a temporary name and renamed into place), TCP, or a socket handed
 * over already listening (systemd socket activation). */
#include "remote/dnetd/srv.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

static int listen_unix(struct dnet_srv *s, struct dnet_err *err)
{
	struct sockaddr_un sa;
	struct stat st;
	memset(&sa, 0, sizeof sa);
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path, s->spec.path, strlen(s->spec.path) + 1);

	if (lstat(s->spec.path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode))
			return dnet_seterr(err, DNET_EINVAL, "%s exists and is not a socket", s->spec.path);
		int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (probe < 0)
			return dnet_seterr(err, DNET_EIO, "socket: %s", strerror(errno));
		int rc = connect(probe, (struct sockaddr *)&sa, sizeof sa);
		int e = errno;
		close(probe);
		if (rc == 0)
			return dnet_seterr(err, DNET_EBUSY, "%s: another dnetd is already listening there",
					   s->spec.path);
		if (e != ECONNREFUSED)
			return dnet_seterr(err, DNET_EIO, "%s: %s", s->spec.path, strerror(e));
		if (unlink(s->spec.path) != 0)
			return dnet_seterr(err, DNET_EIO, "cannot remove stale socket %s: %s", s->spec.path,
					   strerror(errno));
	}
	/* The socket is made under a temporary name and renamed into place once
	 * it listens: a client that sees the path never finds it refusing
	 * connections (a launcher starts its clients as soon as the path exists). */
	char tmp[sizeof sa.sun_path];
	if (snprintf(tmp, sizeof tmp, "%s.%ld", s->spec.path, (long)getpid()) >= (int)sizeof tmp)
		snprintf(tmp, sizeof tmp, "%s", s->spec.path); /* no room: bind in place */
	memcpy(sa.sun_path, tmp, strlen(tmp) + 1);
	unlink(tmp);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return dnet_seterr(err, DNET_EIO, "socket: %s", strerror(errno));
	mode_t old = umask(0177);
	int rc = bind(fd, (struct sockaddr *)&sa, sizeof sa);
	int e = errno;
	umask(old);
	if (rc != 0) {
		close(fd);
		return dnet_seterr(err, e == EACCES ? DNET_EPERM : DNET_EIO, "bind %s: %s", s->spec.path,
				   strerror(e));
	}
	bool grp = s->cfg.socket_group != NULL;
	struct group *gr = grp ? getgrnam(s->cfg.socket_group) : NULL;
	if (grp && !gr) {
		close(fd);
		unlink(tmp);
		return dnet_seterr(err, DNET_EINVAL, "--socket-group: no group '%s'", s->cfg.socket_group);
	}
	if ((grp && chown(tmp, (uid_t)-1, gr->gr_gid) != 0) || chmod(tmp, grp ? 0660 : 0600) != 0 ||
	    listen(fd, SOMAXCONN) != 0 || (strcmp(tmp, s->spec.path) && rename(tmp, s->spec.path) != 0)) {
		e = errno;
		close(fd);
		unlink(tmp);
		return dnet_seterr(err, DNET_EIO, "listen %s: %s", s->spec.path, strerror(e));
	}
	s->unlink_path = true;
	s->lfd = fd;
	rmt_sockspec_format(&s->spec, s->address, sizeof s->address);
	return 0;
}

static int listen_tcp(struct dnet_srv *s, struct dnet_err *err)
{
	struct addrinfo hints, *res = NULL, *ai;
	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	int g = getaddrinfo(s->spec.host, s->spec.port, &hints, &res);
	if (g != 0)
		return dnet_seterr(err, DNET_EINVAL, "cannot resolve %s: %s", s->spec.host, gai_strerror(g));
	int fd = -1, e = 0;
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
		if (fd < 0) {
			e = errno;
			continue;
		}
		int one = 1;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, SOMAXCONN) == 0)
			break;
		e = errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		return dnet_seterr(err, DNET_EIO, "cannot listen on tcp:%s:%s: %s", s->spec.host,
				   s->spec.port, strerror(e));
	s->lfd = fd;
	/* Report the port actually bound (port 0 picks one). */
	struct sockaddr_storage ss;
	socklen_t sl = sizeof ss;
	char host[256], port[8];
	if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0 &&
	    getnameinfo((struct sockaddr *)&ss, sl, host, sizeof host, port, sizeof port,
			NI_NUMERICHOST | NI_NUMERICSERV) == 0) {
		snprintf(s->spec.host, sizeof s->spec.host, "%s", host);
		snprintf(s->spec.port, sizeof s->spec.port, "%s", port);
	}
	rmt_sockspec_format(&s->spec, s->address, sizeof s->address);
	return 0;
}

/* A socket handed over already listening (systemd socket activation,
 * sd_listen_fds(3)): UNIX stream or TCP; TCP still needs a token. */
static int adopt_listener(struct dnet_srv *s, int fd, struct dnet_err *err)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof ss;
	int type = 0, acc = 0;
	socklen_t tl = sizeof type, al = sizeof acc;
	if (fd < 0 || getsockname(fd, (struct sockaddr *)&ss, &sl) != 0 ||
	    getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tl) != 0 ||
	    getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &al) != 0 || type != SOCK_STREAM || !acc)
		return dnet_seterr(err, DNET_EINVAL, "activation socket (fd %d) is not a listening stream socket", fd);
	if (ss.ss_family != AF_UNIX && ss.ss_family != AF_INET && ss.ss_family != AF_INET6)
		return dnet_seterr(err, DNET_EINVAL, "activation socket (fd %d): address family %d not served", fd,
				   ss.ss_family);
	s->spec.tcp = ss.ss_family != AF_UNIX;
	if (s->spec.tcp && !s->cfg.token && !s->cfg.user_tokens)
		return dnet_seterr(err, DNET_EINVAL, "activation socket is TCP: a token is required (--token-file)");
	if (s->spec.tcp && s->cfg.allow)
		return dnet_seterr(err, DNET_EINVAL, "activation socket is TCP: --allow is for UNIX sockets "
				   "(on TCP, --user-tokens confines clients)");
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) != 0 || fcntl(fd, F_SETFD, FD_CLOEXEC) != 0)
		return dnet_seterr(err, DNET_EIO, "activation socket (fd %d): %s", fd, strerror(errno));
	s->lfd = fd;
	s->unlink_path = false; /* systemd owns the socket file */
	if (s->spec.tcp) {
		char host[256], port[8];
		if (getnameinfo((struct sockaddr *)&ss, sl, host, sizeof host, port, sizeof port,
				NI_NUMERICHOST | NI_NUMERICSERV) == 0) {
			snprintf(s->spec.host, sizeof s->spec.host, "%s", host);
			snprintf(s->spec.port, sizeof s->spec.port, "%s", port);
		}
	} else {
		const struct sockaddr_un *su = (const struct sockaddr_un *)&ss;
		size_t n = strnlen(su->sun_path, sizeof su->sun_path);
		if (n >= sizeof s->spec.path)
			n = sizeof s->spec.path - 1;
		memcpy(s->spec.path, su->sun_path, n);
		s->spec.path[n] = 0;
	}
	rmt_sockspec_format(&s->spec, s->address, sizeof s->address);
	return 0;
}

int srv_listen(struct dnet_srv *s, struct dnet_err *err)
{
	return s->cfg.activated ? adopt_listener(s, s->cfg.listen_fd, err)
				: s->spec.tcp ? listen_tcp(s, err) : listen_unix(s, err);
}
