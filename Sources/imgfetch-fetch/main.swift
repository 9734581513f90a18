import ImgfetchCLI
import ImgfetchNetworkCLI

#if canImport(Glibc)
  import Glibc
#endif

// The network executable, exec'd by imgfetch (with the same arguments) for URLs, Parse sources and
// the cache; it runs every other command too, so it can be called directly.
let invocation = Imgfetch.startProcess()
exit(await NetworkCommands.run(invocation).rawValue)
