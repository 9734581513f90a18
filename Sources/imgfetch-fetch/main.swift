import ImageCodecs
import ImgfetchCLI
import ImgfetchNetworkCLI

#if canImport(Glibc)
  import Glibc
#endif

// The network executable, exec'd by imgfetch (with the same arguments) for URLs, Parse sources and
// the cache; it runs every other command too, so it can be called directly.
MallocArenas.limit(to: 2)
signal(SIGPIPE, SIG_IGN)
Imgfetch.unblockInterrupts()
guard let invocation = Imgfetch.parse(Array(CommandLine.arguments.dropFirst())) else { exit(ExitCode.usage.rawValue) }
exit(await NetworkCommands.run(invocation).rawValue)
