import ImgfetchCLI

#if canImport(Glibc)
  import Glibc
#endif

// A closed pipe (`imgfetch decode x.png | head -c 10`) is an ordinary write error, not a signal.
signal(SIGPIPE, SIG_IGN)
// A parent may have started us with SIGINT/SIGTERM blocked (Foundation's Process does from some
// threads); Ctrl-C and SIGTERM must reach the handler that cancels transfers and cleans up.
var interrupts = sigset_t()
sigemptyset(&interrupts)
sigaddset(&interrupts, SIGINT)
sigaddset(&interrupts, SIGTERM)
pthread_sigmask(SIG_UNBLOCK, &interrupts, nil)
exit(await Imgfetch.run(Array(CommandLine.arguments.dropFirst())))
