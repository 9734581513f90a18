// Starting the tests' child processes (fixture servers, imgfetch runs) so that none keeps another
// test's descriptors. The tests run in parallel in one process: whatever descriptor is open and not
// close-on-exec when any thread spawns a child is copied into that child. Foundation's `Process`
// on Linux closes 3...(the highest descriptor open when it looks), so descriptors that other threads
// open between that look and the spawn (their pipes and `Process`'s own socket pairs) slip through;
// and it keeps one descriptor open on purpose, the socket whose end tells it the child has exited,
// which the child's own children inherit in turn. A long-lived fixture server holding the write end
// of another test's pipe keeps that test's read from ever seeing EOF. Here the child closes every
// descriptor from 3 up as it starts (glibc's closefrom action: no list to go stale), and the pipes
// we make are close-on-exec from birth, so other code's children cannot take them either.
#define _GNU_SOURCE
#include "CFixtureSupport.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <unistd.h>

int cfs_pipe_cloexec(int ends[2]) { return pipe2(ends, O_CLOEXEC); }

int cfs_spawn(pid_t *pid, const char *file, char *const argv[], char *const envp[], const int stdio[3]) {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attributes;
  int error = posix_spawn_file_actions_init(&actions);
  if (error != 0) return error;
  error = posix_spawnattr_init(&attributes);
  if (error != 0) {
    posix_spawn_file_actions_destroy(&actions);
    return error;
  }
  // dup2 gives the child's copy no close-on-exec flag, whatever the original has.
  for (int target = 0; target < 3 && error == 0; target++) {
    error = stdio[target] < 0 ? posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_RDWR, 0)
                              : posix_spawn_file_actions_adddup2(&actions, stdio[target], target);
  }
  if (error == 0) error = posix_spawn_file_actions_addclosefrom_np(&actions, 3);
  // The signal state a shell gives: nothing blocked (a test thread's mask can block SIGTERM, and a
  // server would never stop) and every signal at its default action (none ignored because the test
  // process ignores it, such as SIGPIPE).
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  if (error == 0) error = posix_spawnattr_setsigmask(&attributes, &none);
  if (error == 0) error = posix_spawnattr_setsigdefault(&attributes, &all);
  // A process group of its own (as Foundation's Process does), so that a hung child and whatever it
  // started can be ended together.
  short flags = POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
  if (error == 0) error = posix_spawnattr_setflags(&attributes, flags);
  if (error == 0) error = posix_spawnp(pid, file, &actions, &attributes, argv, envp);
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  return error;
}
