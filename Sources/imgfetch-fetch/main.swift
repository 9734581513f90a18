import ImgfetchCLI
import ImgfetchNetworkCLI

// The network executable, exec'd by imgfetch (with the same arguments) for URLs, Parse sources and
// the cache; it runs every other command too, so it can be called directly.
NetworkCommands.main(Imgfetch.startProcess())
