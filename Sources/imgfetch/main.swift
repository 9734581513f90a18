import ImgfetchCLI
import ImgfetchHit

#if canImport(Glibc)
  import Glibc
#endif

// The codec-only executable: info, decode, verify and local files run here without loading
// Foundation, ICU or libcurl. A single Parse object's warm hit is served here too (libcurl loaded
// for its one request) when the cache's hint says it is likely; a miss, URLs, other Parse sources
// and the cache exec imgfetch-fetch.
let invocation = Imgfetch.startProcess()
if invocation.needsNetwork { exit(WarmHit.serveOrHandOff(invocation)) }
exit(Imgfetch.runLocal(invocation).rawValue)
