// C for the test support, kept small: SHA-256, so that hashing megapixel decodes stays fast in
// debug builds (the Swift version took ~20x longer at -Onone, and Package.swift may not use
// unsafeFlags to optimise one target); and starting child processes, which needs glibc calls that
// Swift's Glibc module does not show (pipe2, posix_spawn_file_actions_addclosefrom_np).
#ifndef CFIXTURESUPPORT_H
#define CFIXTURESUPPORT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/// Writes the SHA-256 digest (FIPS 180-4) of `length` bytes at `bytes` into `digest`.
void cfs_sha256(const void *bytes, size_t length, uint8_t digest[32]);

/// Makes a pipe whose two ends are close-on-exec from the moment they exist (`pipe2` with
/// `O_CLOEXEC`). Returns 0, or -1 with `errno` set.
int cfs_pipe_cloexec(int ends[2]);

/// Starts `file` (looked up in `PATH` when it has no slash) with `argv` and `envp`, in a process
/// group of its own. Its descriptors 0, 1 and 2 are `stdio[0..2]` (or /dev/null where that is
/// negative), and it gets no other descriptor of this process. It starts with no signal blocked and
/// every signal at its default action, as a shell starts a command.
/// Returns 0 with `*pid` set, or an `errno` value.
int cfs_spawn(pid_t *pid, const char *file, char *const argv[], char *const envp[], const int stdio[3]);

#endif
