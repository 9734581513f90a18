import CProcessSettings
import ImageCodecs
import ImgfetchCLI
import ImgfetchNetworkCLI

#if canImport(Glibc)
  import Glibc
#endif

// The network executable, exec'd by imgfetch (with the same arguments) for URLs, Parse sources and
// the cache; it runs every other command too, so it can be called directly.
_ = process_limit_malloc_arenas(2)
// An executable decoding one image after another reuses the last large pixel buffers instead of
// faulting fresh pages in (a library leaves this off: PixelBufferPool's default is 0 bytes).
PixelBufferPool.shared.maximumBytes = 256 << 20
signal(SIGPIPE, SIG_IGN)
Imgfetch.unblockInterrupts()
guard let invocation = Imgfetch.parse(Array(CommandLine.arguments.dropFirst())) else { exit(ExitCode.usage.rawValue) }
exit(await NetworkCommands.run(invocation).rawValue)
