import ImgfetchCLI

#if canImport(Glibc)
  import Glibc
#endif

// The codec-only executable: info, decode, verify and local files run here without loading
// Foundation's networking, ICU or libcurl; URLs, Parse sources and the cache exec imgfetch-fetch.
let invocation = Imgfetch.startProcess()
if invocation.needsNetwork { exit(Imgfetch.execNetworkExecutable().rawValue) }
exit(Imgfetch.runLocal(invocation).rawValue)
