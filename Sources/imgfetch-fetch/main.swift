import ImgfetchCLI
import ImgfetchHit
import ImgfetchNetworkCLI

// The network executable, exec'd by imgfetch (with the same arguments) for URLs, Parse sources and
// the cache, or started by it beside a single object's warm hit to take over on a miss (it waits
// for that first: HitHandoff, having made its download side meanwhile when nothing can be a hit);
// it runs every other command too, so it can be called directly.
NetworkCommands.prepareBeforeHandoff()
HitHandoff.adoptIfStarted()
NetworkCommands.main(Imgfetch.startProcess())
