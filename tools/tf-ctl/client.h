/*
 * client.h: reaching a program's control socket (runtime/control/server.c),
 * shared by tf-ctl and tf-watch. Links nothing of TF but its escaper: the
 * wire protocol is one request line, answered by "ok" and the output, or
 * "error: ...".
 *
 * A client trusts the server no more than the server trusts it
 * (docs/design.md .ctl.client): the socket directory must be a real
 * directory of our own that nobody else may enter, and the server's uid
 * (SO_PEERCRED) must be ours, before anything is sent.
 */
#ifndef TF_CTL_CLIENT_H
#define TF_CTL_CLIENT_H

#include <stddef.h>

/* Room for why: messages quote escaped paths. */
#define TF_CTL_WHY 1024

/* Where processes of this user serve their sockets: $XDG_RUNTIME_DIR/tf, or
 * /tmp/tf-<uid>. */
void tf_ctl_socket_dir(char *out, size_t max);

/* A pid as the server names its socket: decimal digits, no sign, no
 * blanks, no leading zero, within pid_t. */
int tf_ctl_canonical_pid(const char *s);

/* The socket directory dir, checked: its descriptor, or -1 with why (and
 * *absent set when it does not exist, which is no error for a listing). */
int tf_ctl_open_dir(const char *dir, int *absent, char *why, size_t len);

/* A connected socket to process pid, served by our uid; -1 with why. */
int tf_ctl_connect(const char *pid, char *why, size_t len);
/* Sends n bytes of p whole (EINTR retried, no SIGPIPE): 0, or -1. */
int tf_ctl_send_all(int fd, const char *p, size_t n);

/* Sends line (ending in '\n') to process pid and reads the whole answer (at
 * most TF_CTL_ASK_MAX bytes), waiting at most wait_ms for it. Returns the
 * answer (malloc'ed, starting "ok\n" or "error: "), or NULL with why (no
 * socket, refused, no answer in time, too long). */
#define TF_CTL_ASK_MAX (16u << 20)
char *tf_ctl_ask(const char *pid, const char *line, int wait_ms, char *why, size_t len);

#endif
