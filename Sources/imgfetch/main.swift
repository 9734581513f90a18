import CProcessSettings
import ImageCodecs
import ImgfetchCLI

#if canImport(Glibc)
  import Glibc
#endif

// The codec-only executable: info, decode, verify and local files run here without loading
// Foundation's networking, ICU or libcurl; URLs, Parse sources and the cache exec imgfetch-fetch.
// Address-space limits (ulimit -v) must measure memory, not glibc's per-thread arena reservations.
_ = process_limit_malloc_arenas(2)
// An executable decoding one image after another reuses the last large pixel buffers instead of
// faulting fresh pages in (a library leaves this off: PixelBufferPool's default is 0 bytes).
PixelBufferPool.shared.maximumBytes = 256 << 20
// A closed pipe (`imgfetch decode x.png | head -c 10`) is an ordinary write error, not a signal.
signal(SIGPIPE, SIG_IGN)
// A parent may have started us with SIGINT/SIGTERM blocked (Foundation's Process does from some
// threads); Ctrl-C and SIGTERM must reach the handlers that cancel transfers and clean up.
Imgfetch.unblockInterrupts()
guard let invocation = Imgfetch.parse(Array(CommandLine.arguments.dropFirst())) else { exit(ExitCode.usage.rawValue) }
if invocation.needsNetwork { exit(Imgfetch.execNetworkExecutable().rawValue) }
exit(Imgfetch.runLocal(invocation).rawValue)
