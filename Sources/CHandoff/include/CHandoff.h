/* CHandoff: how `imgfetch` runs imgfetch-fetch beside a warm-hit attempt, so that a miss does not
 * wait for a second process to start (issue 10.5). imgfetch starts imgfetch-fetch at once, with
 * standard input, output and error on /dev/null and one end of a socket pair; it then either closes
 * the socket (a hit was served: imgfetch-fetch exits without a word) or sends one message with its
 * own standard descriptors (a miss: imgfetch-fetch takes them over and goes on), then waits for it.
 * Descriptor passing (SCM_RIGHTS) and SA_SIGINFO need C macros Swift cannot see, hence this target. */
#ifndef C_HANDOFF_H
#define C_HANDOFF_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Starts `path` with `argv` (NULL-terminated) and this environment plus `variable`=<descriptor of
 * its end of a SOCK_SEQPACKET pair>; its standard descriptors on /dev/null. Returns this end
 * (close-on-exec) and sets *pid, or returns -1 (nothing started). */
int32_t handoff_spawn(const char *path, char *const argv[], const char *variable, pid_t *pid);

/* Sends `bytes` as one message with this process's descriptors 0, 1 and 2. Returns 0, or -1 (the
 * other side is gone or the message is too long). */
int32_t handoff_send(int32_t socket, const unsigned char *bytes, size_t length);

/* In the started process: waits for the message (at most `capacity` bytes into `buffer`) and makes
 * the three descriptors that come with it its standard input, output and error. Returns the byte
 * count, 0 when the other side closed the socket without a message, -1 on an error. */
long handoff_adopt(int32_t socket, unsigned char *buffer, size_t capacity);

/* Waits for `pid` and returns its exit status (128 + the signal when a signal ended it). Meanwhile
 * SIGINT and SIGTERM sent by another process (kill) are passed on to it; those a terminal sends
 * reach it anyway (same process group) and are not sent twice. */
int32_t handoff_wait(pid_t pid);

#endif
