import ImgfetchCLI

// The one executable: every command. Local commands (info, decode, verify, local files) run on this
// thread and never load libcurl; the first request of a fetch loads it.
Imgfetch.run(Imgfetch.startProcess())
