/* handoff.c: see CHandoff.h. */
#define _GNU_SOURCE
#include "CHandoff.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int32_t handoff_spawn(const char *path, char *const argv[], const char *variable, pid_t *pid) {
  int ends[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ends) != 0) return -1;
  /* The child's end survives the exec; ours does not. */
  int flags = fcntl(ends[1], F_GETFD);
  if (flags < 0 || fcntl(ends[1], F_SETFD, flags & ~FD_CLOEXEC) != 0) goto fail;
  char number[16];
  snprintf(number, sizeof number, "%d", ends[1]);
  posix_spawn_file_actions_t actions;
  if (posix_spawn_file_actions_init(&actions) != 0) goto fail;
  int ok = posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0) == 0 &&
           posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0) == 0 &&
           posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0) == 0;
  int started = -1;
  if (ok && setenv(variable, number, 1) == 0) {
    started = posix_spawn(pid, path, &actions, NULL, argv, environ);
    unsetenv(variable);
  }
  posix_spawn_file_actions_destroy(&actions);
  if (started != 0) goto fail;
  close(ends[1]);
  return ends[0];
fail:
  close(ends[0]);
  close(ends[1]);
  return -1;
}

int32_t handoff_send(int32_t socket, const unsigned char *bytes, size_t length) {
  int descriptors[3] = {0, 1, 2};
  union {
    struct cmsghdr header;
    char space[CMSG_SPACE(sizeof descriptors)];
  } control;
  memset(&control, 0, sizeof control);
  struct iovec part = {(void *)bytes, length};
  struct msghdr message = {0};
  message.msg_iov = &part;
  message.msg_iovlen = 1;
  message.msg_control = control.space;
  message.msg_controllen = sizeof control.space;
  struct cmsghdr *header = CMSG_FIRSTHDR(&message);
  header->cmsg_level = SOL_SOCKET;
  header->cmsg_type = SCM_RIGHTS;
  header->cmsg_len = CMSG_LEN(sizeof descriptors);
  memcpy(CMSG_DATA(header), descriptors, sizeof descriptors);
  ssize_t sent;
  do sent = sendmsg(socket, &message, MSG_NOSIGNAL);
  while (sent < 0 && errno == EINTR);
  return sent == (ssize_t)length ? 0 : -1;
}

long handoff_adopt(int32_t socket, unsigned char *buffer, size_t capacity) {
  union {
    struct cmsghdr header;
    char space[CMSG_SPACE(3 * sizeof(int))];
  } control;
  memset(&control, 0, sizeof control);
  struct iovec part = {buffer, capacity};
  struct msghdr message = {0};
  message.msg_iov = &part;
  message.msg_iovlen = 1;
  message.msg_control = control.space;
  message.msg_controllen = sizeof control.space;
  ssize_t count;
  do count = recvmsg(socket, &message, MSG_CMSG_CLOEXEC);
  while (count < 0 && errno == EINTR);
  if (count <= 0) return count < 0 ? -1 : 0;
  struct cmsghdr *header = CMSG_FIRSTHDR(&message);
  if ((message.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) || !header || header->cmsg_level != SOL_SOCKET ||
      header->cmsg_type != SCM_RIGHTS || header->cmsg_len != CMSG_LEN(3 * sizeof(int))) {
    /* Close whatever came, and fail. */
    if (header && header->cmsg_type == SCM_RIGHTS) {
      size_t n = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      int *fds = (int *)CMSG_DATA(header);
      for (size_t i = 0; i < n; i++) close(fds[i]);
    }
    return -1;
  }
  int descriptors[3];
  memcpy(descriptors, CMSG_DATA(header), sizeof descriptors);
  int failed = 0;
  for (int i = 0; i < 3; i++) {
    if (dup2(descriptors[i], i) < 0) failed = 1;
    close(descriptors[i]);
  }
  return failed ? -1 : (long)count;
}

static volatile sig_atomic_t handoff_child;

/* Async-signal-safe: kill only. si_code <= 0 is a signal a process sent (kill, sigqueue, tkill);
 * a terminal's (SI_KERNEL) reached the child too. */
static void handoff_forward(int number, siginfo_t *info, void *context) {
  (void)context;
  if (info && info->si_code <= 0 && handoff_child > 0) kill((pid_t)handoff_child, number);
}

int32_t handoff_wait(pid_t pid) {
  handoff_child = pid;
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_sigaction = handoff_forward;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, NULL);
  sigaction(SIGTERM, &action, NULL);
  int status = 0;
  pid_t done;
  do done = waitpid(pid, &status, 0);
  while (done < 0 && errno == EINTR);
  if (done != pid) return 1;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}
