import ImgfetchCLI

#if canImport(Glibc)
  import Glibc
#endif

// A closed pipe (`imgfetch decode x.png | head -c 10`) is an ordinary write error, not a signal.
signal(SIGPIPE, SIG_IGN)
exit(await Imgfetch.run(Array(CommandLine.arguments.dropFirst())))
