/*
 * client.h: talking to a program's control socket (runtime/control/server.c),
 * shared by tf-ctl and tf-watch. Links nothing of TF: the wire protocol is
 * one request line, answered by "ok" and the output, or "error: ...".
 */
#ifndef TF_CTL_CLIENT_H
#define TF_CTL_CLIENT_H

#include <stddef.h>

/* Where processes of this user serve their sockets: $XDG_RUNTIME_DIR/tf, or
 * /tmp/tf-<uid>. */
void tf_ctl_socket_dir(char *out, size_t max);

/* Sends line (ending in '\n') to process pid and reads the whole answer,
 * waiting at most wait_ms for it. Returns the answer (malloc'ed, starting
 * "ok\n" or "error: "), or NULL with the reason in why (no socket, refused,
 * no answer in time). */
char *tf_ctl_ask(const char *pid, const char *line, int wait_ms, char *why, size_t len);

#endif
